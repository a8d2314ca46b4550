import Foundation
import Synchronization

/// One `prefetch` call in flight (SDWebImage's `SDWebImagePrefetchToken`). Cancelling it stops
/// its loads; its completion then never fires.
public final class PrefetchToken: Sendable {
    struct State {
        var finished = 0
        var skipped = 0
        var isCancelled = false
        /// Completed or cancelled: nothing more is delivered.
        var isDone = false
        var progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)?
        var completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)?
        var task: Task<Void, Never>?
    }

    /// The URLs of this call, in order.
    public let urls: [URL]
    let state: Mutex<State>
    /// Held while a count is taken and delivered, so progress reaches the caller in order.
    private let delivery = Mutex(())
    private let onEnd: @Sendable (PrefetchToken) -> Void

    init(
        urls: [URL], progress: (@Sendable (Int, Int) -> Void)?, completion: (@Sendable (Int, Int) -> Void)?,
        onEnd: @escaping @Sendable (PrefetchToken) -> Void
    ) {
        self.urls = urls
        state = Mutex(State(progress: progress, completion: completion))
        self.onEnd = onEnd
    }

    /// URLs done so far, loaded or not.
    public var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs that failed.
    public var skippedCount: Int { state.withLock { $0.skipped } }
    public var totalCount: Int { urls.count }
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Stops the remaining loads. Neither progress nor completion fires after this returns.
    public func cancel() {
        let (wasRunning, task) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard !state.isDone else { return (false, nil) }
            state.isDone = true
            state.isCancelled = true
            state.progress = nil
            state.completion = nil
            defer { state.task = nil }
            return (true, state.task)
        }
        guard wasRunning else { return }
        task?.cancel()
        onEnd(self)
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.task = task }
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    /// Counts one URL as done; returns the counts, or nil when cancelled.
    func record(succeeded: Bool) -> (finished: Int, total: Int)? {
        delivery.withLock { _ in
            let (progress, counts) = state.withLock { state -> ((@Sendable (Int, Int) -> Void)?, (Int, Int)?) in
                guard !state.isDone else { return (nil, nil) }
                state.finished += 1
                if !succeeded { state.skipped += 1 }
                return (state.progress, (state.finished, urls.count))
            }
            guard let counts else { return nil }
            progress?(counts.0, counts.1)
            return counts
        }
    }

    /// Delivers the completion once, unless cancelled.
    func complete() {
        let (wasRunning, completion, counts) = state.withLock { state in
            defer { state.isDone = true; state.completion = nil; state.progress = nil; state.task = nil }
            return (!state.isDone, state.completion, (state.finished, state.skipped))
        }
        guard wasRunning else { return }
        completion?(counts.0, counts.1)
        onEnd(self)
    }
}
