import Foundation
import Synchronization

/// One `prefetch` call in flight (SDWebImage's `SDWebImagePrefetchToken`). Cancelling it stops
/// its loads; neither progress nor completion fires after ``cancel()`` returns (`CallbackGate`).
/// ``pause()`` holds back loads not yet started until ``resume()``.
public final class PrefetchToken: Sendable {
    enum Event: Sendable {
        /// `then`: the prefetcher's observer, which SD 4 calls after the progress block.
        case progress(finished: Int, total: Int, then: (@Sendable () -> Void)?)
        case completion(finished: Int, skipped: Int)
    }

    /// The URLs of this call, in order.
    public let urls: [URL]
    /// When the call was made.
    public let startDate = Date()
    private let counts = Mutex((requested: 0, finished: 0, skipped: 0, bytes: 0))
    private let pauseState = Mutex<(isPaused: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let gate: CallbackGate<Event>
    /// Called once when the token ends either way: the prefetcher's bookkeeping and its observer's
    /// `didFinish`, which SD 4 sends before the completion block.
    private let onEnd: @Sendable (PrefetchToken) -> Void

    init(
        urls: [URL], progress: (@Sendable (Int, Int) -> Void)?, completion: (@Sendable (Int, Int) -> Void)?,
        onEnd: @escaping @Sendable (PrefetchToken) -> Void
    ) {
        self.urls = urls
        gate = CallbackGate { event in
            switch event {
            case .progress(let finished, let total, let then):
                progress?(finished, total)
                then?()
            case .completion(let finished, let skipped): completion?(finished, skipped)
            }
        }
        self.onEnd = onEnd
    }

    /// URLs done so far, loaded or not.
    public var finishedCount: Int { counts.withLock { $0.finished } }
    /// URLs that failed.
    public var skippedCount: Int { counts.withLock { $0.skipped } }
    /// URLs asked for (repeats included).
    public var totalCount: Int { urls.count }
    /// List positions whose load has started (SD 4's `requestedCount`): a worker took them,
    /// repeats included; it reaches ``totalCount`` once the last URL has started.
    public var requestedCount: Int { counts.withLock { $0.requested } }
    /// Bytes of the entries stored so far, counted by prefetches into a collection (which check
    /// each entry on disk); 0 for others.
    public var byteCount: Int { counts.withLock { $0.bytes } }
    public var isCancelled: Bool { gate.isCancelled }
    public var isPaused: Bool { pauseState.withLock { $0.isPaused } }

    /// Stops the remaining loads. Neither progress nor completion fires after this returns.
    public func cancel() {
        if gate.cancel(delivering: nil) { onEnd(self) }
        resume()
    }

    /// Starts no more loads until ``resume()``; loads already running finish and are reported.
    public func pause() {
        pauseState.withLock { $0.isPaused = true }
    }

    /// Lets the loads go on after ``pause()``.
    public func resume() {
        let waiters = pauseState.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isPaused = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once unless paused; then when resumed or cancelled.
    func waitWhilePaused() async {
        guard pauseState.withLock({ $0.isPaused }) else { return }
        await withCheckedContinuation { continuation in
            let waiting = pauseState.withLock { state in
                if state.isPaused, !gate.isCancelled { state.waiters.append(continuation) }
                return state.isPaused && !gate.isCancelled
            }
            if !waiting { continuation.resume() }
        }
    }

    func noteRequested() {
        counts.withLock { $0.requested += 1 }
    }

    func addBytes(_ bytes: Int) {
        counts.withLock { $0.bytes += bytes }
    }

    func attach(_ task: Task<Void, Never>) { gate.attach(task) }

    /// Counts one URL as done and reports it: first to the progress handler, then to `observe`
    /// (SD 4's delegate, called after its progress block), in order with every other report.
    /// `false` once cancelled.
    @discardableResult
    func record(succeeded: Bool, observe: (@Sendable () -> Void)? = nil) -> Bool {
        var recorded = false
        gate.send {
            let finished = counts.withLock { counts in
                counts.finished += 1
                if !succeeded { counts.skipped += 1 }
                return counts.finished
            }
            recorded = true
            return .progress(finished: finished, total: urls.count, then: observe)
        }
        return recorded
    }

    /// Ends the token, unless cancelled: the prefetcher hears first (SD's delegate order), then
    /// the completion.
    func complete() {
        gate.finish {
            onEnd(self)
            let (finished, skipped) = counts.withLock { ($0.finished, $0.skipped) }
            return .completion(finished: finished, skipped: skipped)
        }
    }
}
