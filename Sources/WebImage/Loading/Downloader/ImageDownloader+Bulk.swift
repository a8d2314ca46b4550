import Foundation
import HTTPTypes
import NIOCore

/// The downloader's side of a bulk prefetch (``BulkLane``): a load that goes down a worker's own
/// connection instead of through an operation, with the same request, queue slot, checks,
/// redirects, completion, events and errors as ``downloadImage(with:options:context:progress:completed:)``.
extension ImageDownloader: BulkLoadExecuting {
    /// This downloader, when it downloads on the lean client (``DownloaderConfig/Transport/http1``).
    /// Not with a hop policy: its hops go through the transfer, which asks it.
    var bulkDownloader: ImageDownloader? { http1 == nil || config.hopPolicy != nil ? nil : self }

    func bulkDownloader(for url: URL) -> ImageDownloader? {
        HTTP1Transport.handles(url) ? bulkDownloader : nil
    }

    /// A connection for a bulk worker running on `executor` (one of ``bulkExecutors``).
    func bulkConnection(for executor: any TaskExecutor) -> HTTP1BulkConnection? {
        guard let http1, let loop = (executor as? EventLoopTaskExecutor)?.eventLoop else { return nil }
        return HTTP1BulkConnection(transport: http1, config: config, eventLoop: loop, tlsConfiguration: nil)
    }

    /// Loads `url` on `connection` once the queue gives it a slot; `nil` when it must go the
    /// ordinary way: a download of it is already in flight (to join), or the options want
    /// something only an operation does.
    nonisolated(nonsending) func bulkLoad(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, on connection: HTTP1BulkConnection
    ) async -> Result<ImageLoaderResult, WebImageError>? {
        guard HTTP1Transport.handles(url), options.isDisjoint(with: [.allowInvalidSSLCertificates, .progressiveLoad]) else { return nil }
        guard let request = makeRequest(for: url, options: options, context: context) else { return .failure(Self.requestRefused) }
        let key = DownloadShareKey(url: url, options: options, context: context)
        let share = BulkShare(url: url) { connection.cancel(owner: $0) }
        let refusal = state.withLock { state -> WebImageError?? in
            if state.isShutDown { return .some(Self.shutDown) }
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
        let (result, response) = await load(request, url: url, options: options, context: context, share: share, on: connection)
        state.withLock { state in
            if state.bulk[key] === share { state.bulk[key] = nil }
        }
        share.end(result, response: response)
        return result
    }

    /// Waits for a queue slot, fetches down the lane (following redirects), then runs the
    /// completion an operation would run, emitting the same events.
    nonisolated(nonsending) private func load(
        _ request: DownloadRequest, url: URL, options: DownloaderOptions, context: ImageLoaderContext, share: BulkShare,
        on connection: HTTP1BulkConnection
    ) async -> (Result<ImageLoaderResult, WebImageError>, DownloadResponse?) {
        let enqueued = ContinuousClock.now
        var started: ContinuousClock.Instant?
        var startDate = Date()
        var finalURL = request.url
        var hops = 0
        let outcome = await withTaskCancellationHandler {
            guard await share.takeSlot(in: queue, priority: DownloadPriority(options)) else {
                return HTTP1BulkConnection.Outcome.failure(WebImageError.cancelled, response: nil)
            }
            (started, startDate) = (.now, Date())
            hub.emit(.start(url))
            var request = request
            var redirects = RedirectChain(from: request.url, limit: config.maximumRedirects)
            while true {
                finalURL = request.url
                let outcome = await connection.fetch(
                    request, owner: share, responseModifier: context.responseModifier ?? config.responseModifier,
                    cookieJar: options.contains(.handleCookies) ? config.cookieJar : nil, redirects: redirects,
                    stopped: { share.isStopped })
                guard case .redirect(let target, let status) = outcome else { return outcome }
                switch redirects.follow(request, to: target, status: status) {
                case .failure(let error): return .failure(error, response: nil)
                case .success(let next): (request, hops) = (next, hops + 1)
                }
            }
        } onCancel: {
            share.prefetchLeaves()
        }
        guard let started else {
            // Stopped while it waited for a slot: as an operation cancelled in the queue, it only finishes.
            queue.remove(share)
            hub.emit(.finish(url, metrics: DownloadMetrics(url: url, startDate: startDate), error: .cancelled))
            return (.failure(.cancelled), nil)
        }
        let output: Result<TransferOutput, WebImageError>
        let response: DownloadResponse?
        switch outcome {
        case .response(let accepted, let data):
            response = accepted
            output = .success(TransferOutput(data: data, response: accepted))
        case .failure(let error, let refused):
            response = refused
            output = .failure(TransportErrorMapping.webImageError(for: error, url: finalURL, redirectLimit: config.maximumRedirects))
        case .redirect:
            preconditionFailure("redirects are followed above")
        }
        if let response { hub.emit(.response(url, response)) }
        hub.emit(.stop(url))
        let metrics = DownloadMetrics(
            url: url, startDate: startDate, queueDuration: enqueued.duration(to: started).seconds,
            duration: started.duration(to: .now).seconds, receivedBytes: Int64((try? output.get().data.count) ?? 0),
            statusCode: response?.statusCode, redirectCount: hops)
        let result = await complete(output, url: url, options: options, context: context, metrics: metrics)
        // Held through the completion, as an operation holds it through its decode.
        queue.remove(share)
        let error: WebImageError? = if case .failure(let error) = result { error } else { nil }
        hub.emit(.finish(url, metrics: metrics, error: error))
        return (result, response)
    }

    /// The operation's completion: a structure check here on the loop, a decode off it.
    nonisolated(nonsending) private func complete(
        _ output: Result<TransferOutput, WebImageError>, url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        metrics: DownloadMetrics
    ) async -> Result<ImageLoaderResult, WebImageError> {
        guard case .success(let transferred) = output, !DownloadCompletion.isQuick(transferred, context: context, config: config) else {
            return DownloadCompletion.result(of: output, url: url, options: options, context: context, config: config, metrics: metrics)
        }
        let config = self.config
        return await withCheckedContinuation { done in
            ImageWorkQueue.decoding.async {
                done.resume(returning: DownloadCompletion.result(
                    of: output, url: url, options: options, context: context, config: config, metrics: metrics))
            }
        }
    }
}
