import Foundation
import Synchronization

/// One `prefetch` call in flight (SDWebImage's `SDWebImagePrefetchToken`). Cancelling it stops
/// its loads; neither progress nor completion fires after ``cancel()`` returns (`CallbackGate`).
public final class PrefetchToken: Sendable {
    enum Event: Sendable {
        case progress(finished: Int, total: Int)
        case completion(finished: Int, skipped: Int)
    }

    /// The URLs of this call, in order.
    public let urls: [URL]
    private let counts = Mutex((finished: 0, skipped: 0))
    private let gate: CallbackGate<Event>
    /// Called once when the token ends either way: the prefetcher's bookkeeping and its observer's
    /// `didFinish`, which SD sends before the completion block.
    private let onEnd: @Sendable (PrefetchToken) -> Void

    init(
        urls: [URL], progress: (@Sendable (Int, Int) -> Void)?, completion: (@Sendable (Int, Int) -> Void)?,
        onEnd: @escaping @Sendable (PrefetchToken) -> Void
    ) {
        self.urls = urls
        gate = CallbackGate { event in
            switch event {
            case .progress(let finished, let total): progress?(finished, total)
            case .completion(let finished, let skipped): completion?(finished, skipped)
            }
        }
        self.onEnd = onEnd
    }

    /// URLs done so far, loaded or not.
    public var finishedCount: Int { counts.withLock { $0.finished } }
    /// URLs that failed.
    public var skippedCount: Int { counts.withLock { $0.skipped } }
    public var totalCount: Int { urls.count }
    public var isCancelled: Bool { gate.isCancelled }

    /// Stops the remaining loads. Neither progress nor completion fires after this returns.
    public func cancel() {
        if gate.cancel(delivering: nil) { onEnd(self) }
    }

    func attach(_ task: Task<Void, Never>) { gate.attach(task) }

    /// Counts one URL as done and reports it: first to `observe` (SD's delegate), then to the
    /// progress handler, in order with every other report. `false` once cancelled.
    @discardableResult
    func record(succeeded: Bool, observe: (_ finished: Int, _ total: Int) -> Void = { _, _ in }) -> Bool {
        var recorded = false
        gate.send {
            let finished = counts.withLock { counts in
                counts.finished += 1
                if !succeeded { counts.skipped += 1 }
                return counts.finished
            }
            recorded = true
            observe(finished, urls.count)
            return .progress(finished: finished, total: urls.count)
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
