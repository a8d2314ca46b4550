import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One manager load, as the callback form returns it (SDWebImage's
/// `SDWebImageCombinedOperation`): cancelling it cancels the cache query and the download.
///
/// The final answer is delivered exactly once: by the load, or — when ``cancel()`` comes first —
/// as ``WebImageError/cancelled`` inside the `cancel()` call. After that nothing is delivered:
/// deliveries are serialised, and a cancel waits for one in flight on another thread.
public final class CombinedOperation: WebImageOperation {
    enum Event: Sendable {
        case progress(ImageLoaderProgress)
        /// A complete image that is not the last answer (the cached image of a refreshCached load).
        case intermediate(ImageResult)
        /// The last answer. `repeatsIntermediate`: it is the refreshCached image already sent
        /// (the server said 304), which the callback form does not deliver twice.
        case final(Result<ImageResult, WebImageError>, repeatsIntermediate: Bool)
    }

    private struct State {
        var sink: (@Sendable (Event) -> Void)?
        var task: Task<Void, Never>?
        var isCancelled = false
        /// The thread running the sink right now, so a cancel from inside a callback does not
        /// wait for itself.
        var deliveringThread: pthread_t?
    }

    private let state: Mutex<State>
    /// Held while the sink runs: a cancel from another thread waits for a delivery in flight,
    /// which is what makes "nothing after cancel() returns" hold.
    private let delivery = Mutex(())
    /// Called once when the operation ends either way (the manager's running set).
    private let onEnd: @Sendable () -> Void
    /// Whether the sink does anything with ``Event/progress(_:)``. When not, the load asks its
    /// loader for no progress, which spares the downloader a hop to its delivery queue per report.
    let wantsProgress: Bool

    init(wantsProgress: Bool = true, sink: @escaping @Sendable (Event) -> Void, onEnd: @escaping @Sendable () -> Void = {}) {
        state = Mutex(State(sink: sink))
        self.onEnd = onEnd
        self.wantsProgress = wantsProgress
    }

    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Whether the final answer has been delivered (or the operation cancelled).
    public var isFinished: Bool { state.withLock { $0.sink == nil } }

    public func cancel() {
        serialized {
            let (sink, task) = state.withLock { state -> ((@Sendable (Event) -> Void)?, Task<Void, Never>?) in
                guard state.sink != nil else { return (nil, nil) }
                state.isCancelled = true
                defer { state.sink = nil; state.task = nil }
                return (state.sink, state.task)
            }
            guard let sink else { return }
            task?.cancel()
            run(sink, .final(.failure(.cancelled), repeatsIntermediate: false))
            onEnd()
        }
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if state.sink != nil { state.task = task }
            return state.sink == nil
        }
        if cancelled { task.cancel() }
    }

    func send(_ event: Event) {
        if case .final(let result, let repeats) = event {
            finish(result, repeatsIntermediate: repeats)
            return
        }
        serialized {
            guard let sink = state.withLock({ $0.sink }) else { return }
            run(sink, event)
        }
    }

    func finish(_ result: Result<ImageResult, WebImageError>, repeatsIntermediate: Bool = false) {
        serialized {
            let sink = state.withLock { state in
                defer { state.sink = nil; state.task = nil }
                return state.sink
            }
            guard let sink else { return }
            run(sink, .final(result, repeatsIntermediate: repeatsIntermediate))
            onEnd()
        }
    }

    /// `body` under the delivery lock — unless this thread is already inside the sink (a
    /// callback that cancels its own load), which holds it.
    private func serialized(_ body: () -> Void) {
        let me = pthread_self()
        if state.withLock({ $0.deliveringThread.map { pthread_equal($0, me) != 0 } ?? false }) {
            body()
        } else {
            delivery.withLock { _ in body() }
        }
    }

    private func run(_ sink: @Sendable (Event) -> Void, _ event: Event) {
        let previous = state.withLock { state in
            defer { state.deliveringThread = pthread_self() }
            return state.deliveringThread
        }
        sink(event)
        state.withLock { $0.deliveringThread = previous }
    }
}
