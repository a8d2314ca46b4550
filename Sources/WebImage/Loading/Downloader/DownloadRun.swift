import Dispatch
import Foundation
import Synchronization

/// One caller of a download: its progress handler and priority, and the response head once it
/// arrived (SD's `token.response`).
final class DownloadCaller: Sendable {
    let progress: ImageLoaderProgressHandler?
    let priority: DownloadPriority
    private let head = Mutex<DownloadResponse?>(nil)

    init(progress: ImageLoaderProgressHandler?, priority: DownloadPriority) {
        self.progress = progress
        self.priority = priority
    }

    var response: DownloadResponse? {
        get { head.withLock { $0 } }
        set { head.withLock { $0 = newValue } }
    }
}

/// One HTTP download shared by every caller of its key (SDWebImage's
/// `SDWebImageDownloaderOperation`), as the work of one ``SharedTasks`` run: a slot in the
/// downloader's queue, the transfer, the decode. Callers come and go through the run; the work is
/// cancelled when the last one leaves.
///
/// Progress goes to the callers on one serial queue, made when first wanted, so it never runs on
/// an event loop and never overtakes the answer; the decode runs on ``ImageWorkQueue/decoding``,
/// except a structure check of a small body (``QuickDecoding``), which runs where the response ended.
final class DownloadRun: DownloadQueueItem {
    private struct State {
        var priority: DownloadPriority
        /// Waiting for a queue slot.
        var slot: CheckedContinuation<Bool, Never>?
        var transfer: DownloadTransfer?
        var response: DownloadResponse?
        var delivery: DispatchQueue?
        var isCancelled = false
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
    private let callers = Mutex<(@Sendable () -> [DownloadCaller])?>(nil)

    init(
        url: URL, request: DownloadRequest, builder: DownloadRequestBuilder, options: DownloaderOptions, context: ImageLoaderContext,
        environment: DownloadEnvironment
    ) {
        self.url = url
        self.request = request
        self.builder = builder
        self.options = options
        self.context = context
        self.environment = environment
        state = Mutex(State(priority: DownloadPriority(options)))
    }

    /// The work: the callers waiting now and later are `members`.
    func run(_ members: @escaping @Sendable () -> [DownloadCaller]) async -> Result<ImageLoaderResult, WebImageError> {
        callers.withLock { $0 = members }
        guard await slot(), !Task.isCancelled else {
            environment.queue.remove(self)
            environment.events.emit(.finish(url, metrics: DownloadMetrics(url: url, startDate: Date()), error: .cancelled))
            return .failure(.cancelled)
        }
        let (outcome, metrics) = await transfer()
        environment.events.emit(.stop(url))
        // The slot is held through the decode, so downloads that arrive faster than they decode
        // wait to start instead of piling up their bytes.
        let result: Result<ImageLoaderResult, WebImageError>
        if case .success(let output) = outcome, !DownloadCompletion.isQuick(output, context: context, decryptor: environment.config.decryptor) {
            result = await ImageWorkQueue.decoding.run { [self] in
                // Everyone left while the bytes waited for a decoder: nothing to decode for.
                members().isEmpty ? .failure(.cancelled) : completion(of: outcome, metrics: metrics)
            }
        } else {
            result = completion(of: outcome, metrics: metrics)
        }
        environment.queue.remove(self)
        await progressDelivered()
        // Before any answer, as SD posts its finish notification.
        let error: WebImageError? = if case .failure(let error) = result { error } else { nil }
        environment.events.emit(.finish(url, metrics: metrics, error: error))
        return result
    }

    /// Another caller joined: a more urgent one moves the download up the queue; one that came
    /// after the head still sees it.
    func joined(_ caller: DownloadCaller) {
        let (raise, response) = state.withLock { state -> (Bool, DownloadResponse?) in
            let raise = caller.priority.rawValue < state.priority.rawValue
            if raise { state.priority = caller.priority }
            return (raise, state.response)
        }
        if let response { caller.response = response }
        if raise { environment.queue.raise(self, to: caller.priority) }
    }

    // MARK: The queue

    /// Waits for a slot in the downloader's queue; `false` when cancelled first.
    private func slot() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (cancelled, priority) = state.withLock { state in
                    if !state.isCancelled { state.slot = continuation }
                    return (state.isCancelled, state.priority)
                }
                if cancelled { continuation.resume(returning: false) } else { environment.queue.enqueue(self, priority: priority) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                state.isCancelled = true
                defer { state.slot = nil }
                return state.slot
            }
            guard let waiting else { return }
            environment.queue.remove(self)
            waiting.resume(returning: false)
        }
    }

    func startFromQueue() {
        let waiting = state.withLock { state in
            defer { state.slot = nil }
            return state.slot
        }
        // Cancelled as the slot came: it goes to the next one.
        guard let waiting else { return environment.queue.remove(self) }
        waiting.resume(returning: true)
    }

    // MARK: The transfer

    private func transfer() async -> (Result<TransferOutput, WebImageError>, DownloadMetrics) {
        environment.events.emit(.start(url))
        deliverProgress(ImageLoaderProgress(receivedSize: 0, expectedSize: -1, url: url))
        let queueDuration = enqueuedAt.duration(to: .now)
        let ended = await withTaskCancellationHandler {
            await withHandOff { ended in
                let transfer = DownloadTransfer(run: self, queueDuration: queueDuration, ended: ended)
                let cancelled = state.withLock { state in
                    state.transfer = transfer
                    return state.isCancelled
                }
                if cancelled { transfer.cancel() } else { transfer.start() }
            }
        } onCancel: {
            // The slot is free at once (cancelAllDownloads holds the queue's starts meanwhile).
            environment.queue.remove(self)
            state.withLock { state in
                state.isCancelled = true
                return state.transfer
            }?.cancel()
        }
        // The request is over: let it go (its carrier's hop holds it, and it holds this run).
        state.withLock { $0.transfer = nil }
        return ended
    }

    /// The final response head arrived.
    func transferReceived(_ response: DownloadResponse) {
        state.withLock { $0.response = response }
        for caller in members() { caller.response = response }
        environment.events.emit(.response(url, response))
    }

    /// Sends `progress` to every caller still waiting that wants it, in order.
    func deliverProgress(_ progress: ImageLoaderProgress) {
        // Most callers (async loads, prefetches) have no progress handler: no hop for nobody. A
        // caller joining after this check misses this report, as it would once the hop had run.
        guard members().contains(where: { $0.progress != nil }) else { return }
        delivery.async { [self] in
            for caller in members() { caller.progress?(progress) }
        }
    }

    private func members() -> [DownloadCaller] {
        callers.withLock { $0 }?() ?? []
    }

    /// The serial queue progress goes out on, made when first needed.
    private var delivery: DispatchQueue {
        state.withLock { state in
            if let queue = state.delivery { return queue }
            let queue = DispatchQueue(label: "WebImage.DownloadRun", qos: .utility)
            state.delivery = queue
            return queue
        }
    }

    /// Returns once the progress sent so far has gone out (the answer comes after it).
    private func progressDelivered() async {
        guard let queue = state.withLock({ $0.delivery }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    private func completion(
        of outcome: Result<TransferOutput, WebImageError>, metrics: DownloadMetrics
    ) -> Result<ImageLoaderResult, WebImageError> {
        DownloadCompletion.result(of: outcome, url: url, options: options, context: context, decryptor: environment.config.decryptor, metrics: metrics)
    }
}

/// What a transfer hands over when all bytes are in.
struct TransferOutput: Sendable {
    var data: Data
    var response: DownloadResponse
}
