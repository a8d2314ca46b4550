import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A running cache query that can be cancelled (SDWebImage's `SDImageCacheToken`).
///
/// Whoever takes the completion out of the mutex first — the finishing query or `cancel()` —
/// is the only one to call it, which is what makes "exactly once" hold under any race. A cancel
/// that loses the race waits for the answer in flight on another thread, so nothing fires after
/// `cancel()` returns.
public final class ImageCacheToken: Sendable {
    private struct State {
        var completion: (@Sendable (ImageCacheResult?) -> Void)?
        var task: Task<Void, Never>?
        var isCancelled = false
        /// The thread running the completion with the query's result, while it does.
        var deliveringThread: pthread_t?
    }

    private let state: Mutex<State>
    /// Held while the query's result is delivered; a cancel from another thread waits on it.
    private let delivery = Mutex(())

    init(completion: @escaping @Sendable (ImageCacheResult?) -> Void) {
        state = Mutex(State(completion: completion))
    }

    /// A token for a query that already answered (a synchronous memory hit).
    static func finished() -> ImageCacheToken {
        ImageCacheToken(completion: { _ in }).consumed()
    }

    private func consumed() -> ImageCacheToken {
        state.withLock { $0.completion = nil }
        return self
    }

    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Stops the query; the completion fires now, with `nil`, unless it already fired.
    public func cancel() {
        let me = pthread_self()
        let (completion, task, deliveringElsewhere) = state.withLock { state in
            state.isCancelled = true
            defer { state.completion = nil; state.task = nil }
            let elsewhere = state.deliveringThread.map { pthread_equal($0, me) == 0 } ?? false
            return (state.completion, state.task, elsewhere)
        }
        task?.cancel()
        if let completion {
            completion(nil)
        } else if deliveringElsewhere {
            delivery.withLock { _ in }
        }
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.task = task }
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    func finish(with result: ImageCacheResult?) {
        delivery.withLock { _ in
            let completion = state.withLock { state in
                defer { state.completion = nil; state.task = nil }
                if state.completion != nil { state.deliveringThread = pthread_self() }
                return state.completion
            }
            guard let completion else { return }
            completion(result)
            state.withLock { $0.deliveringThread = nil }
        }
    }
}
