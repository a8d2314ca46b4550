import Foundation
import HTTPTypes
import NIOCore

/// The downloader's side of a bulk prefetch (``BulkLane``): a load that goes down a worker's own
/// connection instead of through an operation, with the same request, checks, completion and
/// events as ``downloadImage(with:options:context:progress:completed:)`` — and the same errors.
extension ImageDownloader: BulkLoadExecuting {
    /// This downloader, when it downloads on the lean client (``DownloaderConfig/Transport/http1``).
    var bulkDownloader: ImageDownloader? { http1 == nil ? nil : self }

    func sendsToBulkDownloader(_ url: URL) -> Bool {
        http1 != nil && HTTP1Transport.handles(url)
    }

    /// A connection for a bulk worker running on `executor` (one of ``bulkExecutors``).
    func bulkConnection(for executor: any TaskExecutor) -> HTTP1BulkConnection? {
        guard let http1, let loop = (executor as? EventLoopTaskExecutor)?.eventLoop else { return nil }
        return HTTP1BulkConnection(transport: http1, config: config, eventLoop: loop, tlsConfiguration: nil)
    }

    /// Loads `url` on `connection` once the queue gives it a slot; `nil` when it must go the
    /// ordinary way: a download of it is already in flight (to join), or the response redirects.
    func bulkLoad(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, on connection: HTTP1BulkConnection
    ) async -> Result<ImageLoaderResult, WebImageError>? {
        guard HTTP1Transport.handles(url), !options.contains(.allowInvalidSSLCertificates) else { return nil }
        guard let request = makeRequest(for: url, options: options, context: context) else {
            return .failure(.invalidDownloadOperation(reason: "the request modifier returned nil"))
        }
        let key = DownloadShareKey(url: url, options: options, context: context)
        let share = BulkShare(url: url) { connection.cancel() }
        let refusal = state.withLock { state -> WebImageError?? in
            if state.isShutDown { return .some(.invalidDownloadOperation(reason: "the downloader has been shut down")) }
            // A download of it in flight is joined the ordinary way.
            guard state.operations[key] == nil, state.bulk[key] == nil else { return .some(nil) }
            state.bulk[key] = share
            return .none
        }
        switch refusal {
        case .some(.some(let error)): return .failure(error)
        case .some(.none): return nil
        case .none: break
        }
        let result = await load(request, url: url, options: options, context: context, share: share, on: connection)
        state.withLock { state in
            if state.bulk[key] === share { state.bulk[key] = nil }
        }
        if let result {
            share.end(result)
        } else {
            share.handOver { download(url, options: options, context: context, callbacks: $0) }
        }
        return result
    }

    /// The request down the lane, then the completion an operation would run.
    private func load(
        _ request: DownloadRequest, url: URL, options: DownloaderOptions, context: ImageLoaderContext, share: BulkShare,
        on connection: HTTP1BulkConnection
    ) async -> Result<ImageLoaderResult, WebImageError>? {
        let enqueued = ContinuousClock.now
        var started = enqueued
        var startDate = Date()
        let outcome = await withTaskCancellationHandler {
            guard await share.takeSlot(in: queue, priority: DownloadPriority(options)) else {
                return HTTP1BulkConnection.Outcome.failure(WebImageError.cancelled)
            }
            (started, startDate) = (.now, Date())
            hub.emit(.start(url))
            return await connection.fetch(
                request, responseModifier: context.responseModifier ?? config.responseModifier, stopped: { share.isStopped })
        } onCancel: {
            share.prefetchLeaves()
        }
        queue.remove(share)
        let output: TransferOutput
        switch outcome {
        case .redirect:
            hub.emit(.stop(url))
            return nil
        case .failure(let error):
            hub.emit(.stop(url))
            let failure = TransportErrorMapping.webImageError(for: error, url: request.url, redirectLimit: config.maximumRedirects)
            hub.emit(.finish(url, metrics: DownloadMetrics(url: url, startDate: startDate), error: failure))
            return .failure(failure)
        case .response(let response, let data):
            if options.contains(.handleCookies) {
                config.cookieJar.store(setCookieHeaders: response.headerFields[values: .setCookie], from: request.url)
            }
            hub.emit(.response(url, response))
            hub.emit(.stop(url))
            output = TransferOutput(data: data, response: response)
        }
        let metrics = DownloadMetrics(
            url: url, startDate: startDate, queueDuration: enqueued.duration(to: started).seconds,
            duration: started.duration(to: .now).seconds, receivedBytes: Int64(output.data.count), statusCode: output.response.statusCode)
        let complete: @Sendable () -> Result<ImageLoaderResult, WebImageError> = { [config] in
            DownloadCompletion.result(of: .success(output), url: url, options: options, context: context, config: config, metrics: metrics)
        }
        // A structure check runs here on the loop, as the ordinary path runs it; a decode does not.
        let result = DownloadCompletion.isQuick(output, context: context, config: config)
            ? complete() : await withCheckedContinuation { done in ImageWorkQueue.decoding.async { done.resume(returning: complete()) } }
        let error: WebImageError? = if case .failure(let error) = result { error } else { nil }
        hub.emit(.finish(url, metrics: metrics, error: error))
        return result
    }
}
