import AsyncHTTPClient
import Dispatch
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// One HTTP download shared by every caller of its URL (SDWebImage's
/// `SDWebImageDownloaderOperation`): callers join with ``addCallbacks(progress:completion:)``
/// and leave with their ``DownloadToken``; the request stops when the last one leaves. A finished
/// or cancelled operation takes no new callers, so it is never reused.
///
/// Callbacks go out on one serial queue per operation, so progress never overtakes a completion;
/// the final decode runs on ``ImageWorkQueue/decoding``, never on an NIO event loop. Bulk loads
/// skip both hops: a structure check of a small body (``QuickDecoding``) runs where the response
/// ended, and a caller that only resumes an awaiting task (``LoadCallbacks/resumesTask``) is
/// answered there too — one thread wake-up per image instead of three, and none for a prefetch
/// on the lean client, whose loads run on its event loops (``PreferredExecutor``).
final class DownloadOperation: DownloadQueueItem {
    enum Phase { case waiting, running, finishing, done }

    private struct State {
        var phase = Phase.waiting
        var callers = DownloadCallers()
        var transfer: DownloadTransfer?
        var response: DownloadResponse?
        var startedAt: ContinuousClock.Instant?
        /// Made on first use: most operations (async loads, prefetches) never need one.
        var delivery: DispatchQueue?
    }

    /// The URL callers asked for; ``request`` may point elsewhere.
    let url: URL
    /// What makes another caller's download this one.
    let key: DownloadShareKey
    let request: DownloadRequest
    let options: DownloaderOptions
    let context: ImageLoaderContext
    let priority: DownloadPriority
    let environment: DownloadEnvironment
    private let enqueuedAt = ContinuousClock.now
    private let state = Mutex(State())

    init(url: URL, key: DownloadShareKey, request: DownloadRequest, options: DownloaderOptions, context: ImageLoaderContext,
         environment: DownloadEnvironment) {
        self.url = url
        self.key = key
        self.request = request
        self.options = options
        self.context = context
        self.environment = environment
        priority = DownloadPriority(options)
    }

    var response: DownloadResponse? { state.withLock { $0.response } }
    var phase: Phase { state.withLock { $0.phase } }

    /// Joins a caller; `nil` when the operation is done and a new one must be made.
    func add(_ callbacks: LoadCallbacks) -> DownloadToken? {
        state.withLock { state in
            guard state.phase != .done else { return nil }
            return DownloadToken(url: url, id: state.callers.add(callbacks), operation: self, callbacks: callbacks)
        }
    }

    /// The serial queue callbacks go out on, made when first needed.
    private var delivery: DispatchQueue {
        state.withLock { state in
            if let queue = state.delivery { return queue }
            let queue = DispatchQueue(label: "WebImage.DownloadOperation", qos: .utility)
            state.delivery = queue
            return queue
        }
    }

    /// One caller leaves: it alone gets ``WebImageError/cancelled``, before this returns; the last
    /// one stops the request.
    func cancel(tokenID: UInt64) {
        let (removed, stopsOperation, transfer) = state.withLock { state -> (LoadCallbacks?, Bool, DownloadTransfer?) in
            guard let removed = state.callers.remove(tokenID) else { return (nil, false, nil) }
            guard state.callers.isEmpty, state.phase == .waiting || state.phase == .running else { return (removed, false, nil) }
            state.phase = .done
            return (removed, true, state.transfer)
        }
        removed?.cancel()
        if stopsOperation { stop(transfer, error: .cancelled) }
    }

    /// Every caller gets ``WebImageError/cancelled`` and the request stops (SD's `cancel`).
    func cancelAll() { prepareCancelAll()() }

    /// Marks the operation cancelled at once and returns the rest of the work (answering the
    /// callers, stopping the request, freeing the queue slot). The downloader marks every
    /// operation before finishing any, so a freed slot never starts one about to be cancelled.
    func prepareCancelAll() -> @Sendable () -> Void {
        let (callers, transfer, wasActive) = state.withLock { state in
            let callers = state.callers.removeAll()
            let wasActive = state.phase == .waiting || state.phase == .running
            if wasActive { state.phase = .done }
            return (callers, state.transfer, wasActive)
        }
        return { [self] in
            callers.forEach { $0.cancel() }
            if wasActive { stop(transfer, error: .cancelled) }
        }
    }

    private func stop(_ transfer: DownloadTransfer?, error: WebImageError) {
        transfer?.cancel()
        environment.queue.remove(self)
        environment.operationDone(self)
        let metrics = DownloadMetrics(url: url, startDate: Date())
        environment.events.emit(.finish(url, metrics: metrics, error: error))
    }

    // MARK: Running

    func startFromQueue() {
        let started = state.withLock { state in
            guard state.phase == .waiting else { return false }
            state.phase = .running
            state.startedAt = .now
            return true
        }
        guard started else { return environment.queue.remove(self) }
        let transfer = DownloadTransfer(operation: self, queueDuration: enqueuedAt.duration(to: .now))
        environment.events.emit(.start(url))
        deliverProgress(ImageLoaderProgress(receivedSize: 0, expectedSize: -1, url: url))
        let cancelNow = state.withLock { state in
            // Kept only while the request runs: its last caller may have left meanwhile.
            if state.phase == .running { state.transfer = transfer }
            return state.phase == .done
        }
        if cancelNow { transfer.cancel() } else { transfer.start() }
    }

    /// Sends one hop of `transfer` on the client that carries `request`'s URL (connecting to
    /// `address` when the hop policy pinned one).
    func carry(
        _ request: DownloadRequest, address: String?, transfer: DownloadTransfer
    ) -> Result<any TransferTask, WebImageError> {
        if let http1 = environment.http1, HTTP1Transport.handles(request.url) {
            return .success(http1.execute(
                request, address: address, transfer: transfer, tlsConfiguration: tlsConfiguration))
        }
        guard address == nil else { return .failure(.invalidURL(request.url.absoluteString)) }
        let httpRequest: HTTPClient.Request
        do {
            httpRequest = try HTTPClient.Request(request, tlsConfiguration: tlsConfiguration)
        } catch {
            return .failure(.invalidURL(request.url.absoluteString))
        }
        // No client deadline: the transfer's state keeps the resource timeout, on every carrier.
        let task = environment.client.execute(request: httpRequest, delegate: transfer)
        transfer.watchFailures(task)
        return .success(task)
    }

    /// Certificates go unchecked only with ``DownloaderOptions/allowInvalidSSLCertificates``.
    private var tlsConfiguration: TLSConfiguration? {
        guard options.contains(.allowInvalidSSLCertificates) else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }

    // MARK: From the transfer

    func transferReceived(_ response: DownloadResponse) {
        state.withLock { $0.response = response }
        environment.events.emit(.response(url, response))
    }

    /// Sends `progress` to every caller still waiting, in order.
    func deliverProgress(_ progress: ImageLoaderProgress) {
        // Most callers (async loads, prefetches) have no progress handler: no hop for nobody. A
        // caller joining after this check misses this report, as it would once the hop had run.
        guard wantsProgress else { return }
        delivery.async { [self] in
            for caller in state.withLock({ $0.callers.all }) { caller.deliverProgress(progress) }
        }
    }

    var wantsProgress: Bool { state.withLock { $0.callers.wantProgress } }

    /// Callers who joined and wait (the specs watch it).
    var joinedCount: Int { state.withLock { $0.callers.count } }

    /// The transfer ended: decodes on ``ImageWorkQueue/decoding`` (a quick check right here),
    /// frees the queue slot, then answers. The slot is held through the decode, so downloads that
    /// arrive faster than they decode wait to start instead of piling up their bytes.
    func transferEnded(_ outcome: Result<TransferOutput, WebImageError>, metrics: DownloadMetrics?) {
        let proceed = state.withLock { state in
            // The request is over: let it go (an HTTP1Exchange holds its transfer, which holds us).
            state.transfer = nil
            guard state.phase == .running else { return false }
            state.phase = .finishing
            return true
        }
        environment.events.emit(.stop(url))
        guard proceed else { return environment.queue.remove(self) }
        guard case .success(let output) = outcome, !DownloadCompletion.isQuick(output, context: context, decryptor: environment.config.decryptor) else {
            return finish(with: outcome, metrics: metrics)
        }
        ImageWorkQueue.decoding.async { [self] in
            // Everyone left while the bytes waited for a decoder: nothing to decode for.
            let result: Result<ImageLoaderResult, WebImageError> = state.withLock { $0.callers.isEmpty }
                ? .failure(.cancelled) : completion(of: outcome, metrics: metrics)
            environment.queue.remove(self)
            deliver(result, metrics: metrics)
        }
    }

    private func completion(
        of outcome: Result<TransferOutput, WebImageError>, metrics: DownloadMetrics?
    ) -> Result<ImageLoaderResult, WebImageError> {
        DownloadCompletion.result(of: outcome, url: url, options: options, context: context, decryptor: environment.config.decryptor, metrics: metrics)
    }

    private func finish(with outcome: Result<TransferOutput, WebImageError>, metrics: DownloadMetrics?) {
        environment.queue.remove(self)
        deliver(completion(of: outcome, metrics: metrics), metrics: metrics)
    }

    /// Answers every caller: those that only resume a task at once, on this thread; the rest on
    /// the delivery queue, behind any progress sent there (taken off the list only in their turn,
    /// so a cancel meanwhile still answers them itself).
    private func deliver(_ result: Result<ImageLoaderResult, WebImageError>, metrics: DownloadMetrics?) {
        // Before any answer, as SD posts its finish notification: a caller that resumes at once
        // (a prefetch worker) may start its next download before this thread goes on.
        let error: WebImageError? = if case .failure(let error) = result { error } else { nil }
        environment.events.emit(.finish(url, metrics: metrics ?? DownloadMetrics(url: url, startDate: Date()), error: error))
        let (direct, othersWait) = state.withLock { state in
            let direct = state.callers.removeAnsweredInPlace()
            if state.callers.isEmpty { state.phase = .done }
            return (direct, !state.callers.isEmpty)
        }
        for caller in direct { caller.complete(result) }
        guard othersWait else { return environment.operationDone(self) }
        delivery.async { [self] in
            let callers = state.withLock { state in
                state.phase = .done
                return state.callers.removeAll()
            }
            for caller in callers { caller.complete(result) }
            environment.operationDone(self)
        }
    }
}

/// What a transfer hands over when all bytes are in.
struct TransferOutput: Sendable {
    var data: Data
    var response: DownloadResponse
}

extension HTTPClient.Request {
    /// `request` for AsyncHTTPClient.
    init(_ request: DownloadRequest, tlsConfiguration: TLSConfiguration?) throws {
        try self.init(
            url: request.url, method: HTTPMethod(rawValue: request.method.rawValue), headers: HTTPHeaders(requestFields: request.headerFields),
            body: nil, tlsConfiguration: tlsConfiguration)
    }
}
