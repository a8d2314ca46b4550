import Synchronization

/// A running cache query that can be cancelled (SDWebImage's `SDImageCacheToken`).
///
/// Whoever takes the completion out of the mutex first — the finishing query or `cancel()` —
/// is the only one to call it, which is what makes "exactly once" hold under any race.
public final class ImageCacheToken: Sendable {
    private struct State {
        var completion: (@Sendable (ImageCacheResult?) -> Void)?
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    private let state: Mutex<State>

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
        let (completion, task) = state.withLock { state in
            state.isCancelled = true
            defer { state.completion = nil; state.task = nil }
            return (state.completion, state.task)
        }
        task?.cancel()
        completion?(nil)
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.task = task }
            return state.isCancelled
        }
        if cancelled { task.cancel() }
    }

    func finish(with result: ImageCacheResult?) {
        let completion = state.withLock { state in
            defer { state.completion = nil; state.task = nil }
            return state.completion
        }
        completion?(result)
    }
}
