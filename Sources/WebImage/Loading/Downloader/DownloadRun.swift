import Dispatch
import Foundation
import Synchronization

/// One caller of a download: its progress handler and priority, and the download it joined
/// (whose response head is SD's `token.response`).
final class DownloadCaller: Sendable {
    let progress: ImageLoaderProgressHandler?
    let priority: DownloadPriority
    private let joined = Mutex<DownloadRun?>(nil)

    init(progress: ImageLoaderProgressHandler?, priority: DownloadPriority) {
        self.progress = progress
        self.priority = priority
    }

    /// The download this caller joined, set as it joins.
    var run: DownloadRun? {
        get { joined.withLock { $0 } }
        set { joined.withLock { $0 = newValue } }
    }
}

/// One HTTP download shared by every caller of its key (SDWebImage's
/// `SDWebImageDownloaderOperation`), as the work of one ``SharedTasks`` run: a slot in the
/// downloader's queue, the transfer, the decode — driven by their events, so no task of its own
/// stands between the response and the callers. Callers come and go through the run; the work is
/// cancelled when the last one leaves.
///
/// Progress goes to the callers on one serial queue, made when first wanted, so it never runs on
/// an event loop and never overtakes the answer; the decode runs on ``ImageWorkQueue/decoding``,
/// except a structure check of a small body (``QuickDecoding``), which runs where the response ended.
final class DownloadRun: DownloadQueueItem, SharedJob {
    private enum Phase {
        /// Waiting for a queue slot.
        case queued
        case transferring(DownloadTransfer)
        /// The bytes are in: decoding, or answering.
        case finishing
        case cancelled
    }

    private struct State {
        var phase = Phase.queued
        var priority: DownloadPriority
        var response: DownloadResponse?
        var delivery: DispatchQueue?
        /// A caller with a progress handler joined (most have none: async loads, prefetches).
        var wantsProgress: Bool
        /// The run whose work this is, from its start to the answer.
        var run: SharedRunHandle<DownloadCaller, Result<ImageLoaderResult, WebImageError>>?
    }

    /// The URL callers asked for; ``request`` may point elsewhere.
    let url: URL
    /// The first hop's request, and what builds each redirect's.
    let request: DownloadRequest
    let builder: DownloadRequestBuilder
    let options: DownloaderOptions
    let context: ImageLoaderContext
    let environment: DownloadEnvironment
    private let enqueuedAt = ContinuousClock.now
    private let state: Mutex<State>

    /// The download `first` starts.
    init(
        url: URL, request: DownloadRequest, builder: DownloadRequestBuilder, options: DownloaderOptions, context: ImageLoaderContext,
        environment: DownloadEnvironment, first: DownloadCaller
    ) {
        self.url = url
        self.request = request
        self.builder = builder
        self.options = options
        self.context = context
        self.environment = environment
        state = Mutex(State(priority: first.priority, wantsProgress: first.progress != nil))
        first.run = self
    }

    /// Another caller joined: a more urgent one moves the download up the queue.
    func joined(_ caller: DownloadCaller) {
        caller.run = self
        let raise = state.withLock { state -> Bool in
            if caller.progress != nil { state.wantsProgress = true }
            guard caller.priority.rawValue < state.priority.rawValue else { return false }
            state.priority = caller.priority
            return true
        }
        if raise { environment.queue.raise(self, to: caller.priority) }
    }

    /// The final response head, once it arrived.
    var response: DownloadResponse? { state.withLock { $0.response } }

    // MARK: Queue slot → transfer

    func start(_ run: SharedRunHandle<DownloadCaller, Result<ImageLoaderResult, WebImageError>>) {
        let priority = state.withLock { state -> DownloadPriority? in
            // Cancelled as it was made (every download cancelled at once): nothing to start.
            guard case .queued = state.phase else { return nil }
            state.run = run
            return state.priority
        }
        guard let priority else { return }
        if environment.queue.startAtOnce(self) { startFromQueue() } else { environment.queue.enqueue(self, priority: priority) }
    }

    func startFromQueue() {
        let transfer = DownloadTransfer(run: self, queueDuration: enqueuedAt.duration(to: .now)) { [self] in ended($0.0, $0.1) }
        let started = state.withLock { state in
            guard case .queued = state.phase else { return false }
            state.phase = .transferring(transfer)
            return true
        }
        // Cancelled as the slot came: it goes to the next one.
        guard started else { return environment.queue.remove(self) }
        environment.events.emit(.start(url))
        deliverProgress(ImageLoaderProgress(receivedSize: 0, expectedSize: -1, url: url))
        transfer.start()
    }

    /// The last caller left, or every download is cancelled.
    func cancel() {
        let phase = state.withLock { state in
            defer { if case .queued = state.phase { state.phase = .cancelled } }
            return state.phase
        }
        switch phase {
        case .queued:
            // The slot is free at once (cancelAllDownloads holds the queue's starts meanwhile).
            environment.queue.remove(self)
            answer(.failure(.cancelled), metrics: DownloadMetrics(url: url, startDate: Date()))
        case .transferring(let transfer):
            environment.queue.remove(self)
            transfer.cancel()
        case .finishing, .cancelled:
            break
        }
    }

    // MARK: Decode → answer

    /// The transfer ended: the answer is decoded on ``ImageWorkQueue/decoding`` (a quick check
    /// right here). The slot is held through the decode, so downloads that arrive faster than they
    /// decode wait to start instead of piling up their bytes.
    private func ended(_ outcome: Result<TransferOutput, WebImageError>, _ metrics: DownloadMetrics) {
        // The request is over: let it go (its carrier's hop holds it, and it holds this run).
        let run = state.withLock { state in
            state.phase = .finishing
            return state.run
        }
        environment.events.emit(.stop(url))
        guard case .success(let output) = outcome, !DownloadCompletion.isQuick(output, context: context, decryptor: environment.config.decryptor) else {
            return answer(completion(of: outcome, metrics: metrics), metrics: metrics)
        }
        ImageWorkQueue.decoding.async { [self] in
            // Everyone left while the bytes waited for a decoder: nothing to decode for.
            let result: Result<ImageLoaderResult, WebImageError> = run?.members.isEmpty ?? true
                ? .failure(.cancelled) : completion(of: outcome, metrics: metrics)
            answer(result, metrics: metrics)
        }
    }

    /// Frees the slot and answers every caller — behind the progress sent before, if any.
    private func answer(_ result: Result<ImageLoaderResult, WebImageError>, metrics: DownloadMetrics) {
        environment.queue.remove(self)
        let (run, delivery) = state.withLock { state in
            // Its callers hold this download (for their response), and the run holds them.
            defer { state.run = nil }
            return (state.run, state.delivery)
        }
        guard let delivery else { return finish(run, result, metrics: metrics) }
        delivery.async { [self] in finish(run, result, metrics: metrics) }
    }

    private func finish(
        _ run: SharedRunHandle<DownloadCaller, Result<ImageLoaderResult, WebImageError>>?, _ result: Result<ImageLoaderResult, WebImageError>,
        metrics: DownloadMetrics
    ) {
        // Before any answer, as SD posts its finish notification.
        let error: WebImageError? = if case .failure(let error) = result { error } else { nil }
        environment.events.emit(.finish(url, metrics: metrics, error: error))
        run?.finish(result)
    }

    private func completion(
        of outcome: Result<TransferOutput, WebImageError>, metrics: DownloadMetrics
    ) -> Result<ImageLoaderResult, WebImageError> {
        DownloadCompletion.result(of: outcome, url: url, options: options, context: context, decryptor: environment.config.decryptor, metrics: metrics)
    }

    // MARK: From the transfer

    /// The final response head arrived.
    func transferReceived(_ response: DownloadResponse) {
        state.withLock { $0.response = response }
        environment.events.emit(.response(url, response))
    }

    /// Sends `progress` to every caller still waiting that wants it, in order.
    func deliverProgress(_ progress: ImageLoaderProgress) {
        // Most callers (async loads, prefetches) have no progress handler: no hop for nobody. A
        // caller joining after this check misses this report, as it would once the hop had run.
        guard let (delivery, run) = progressQueue() else { return }
        delivery.async {
            for caller in run.members { caller.progress?(progress) }
        }
    }

    /// The serial queue progress goes out on, made when first needed; nil while nobody wants progress.
    private func progressQueue() -> (DispatchQueue, SharedRunHandle<DownloadCaller, Result<ImageLoaderResult, WebImageError>>)? {
        state.withLock { state in
            guard state.wantsProgress, let run = state.run else { return nil }
            if let queue = state.delivery { return (queue, run) }
            let queue = DispatchQueue(label: "WebImage.DownloadRun", qos: .utility)
            state.delivery = queue
            return (queue, run)
        }
    }
}

/// What a transfer hands over when all bytes are in.
struct TransferOutput: Sendable {
    var data: Data
    var response: DownloadResponse
}
