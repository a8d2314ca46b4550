import Synchronization

/// `work`'s value, or `late()` once `limit` has passed — whichever comes first. The caller stops
/// waiting at the deadline even when `work` does not notice cancellation (it may be waiting for
/// work other requests share); `work` is cancelled then and goes on only where it is shared.
func withDeadline<Value: Sendable>(
    _ limit: Duration, late: @escaping @Sendable () -> Value, _ work: @escaping @Sendable () async -> Value
) async -> Value {
    let race = DeadlineRace<Value>()
    return await withCheckedContinuation { continuation in
        race.start(
            continuation,
            work: Task { race.finish(await work()) },
            timer: Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { race.finish(late()) }
            })
    }
}

/// The first of two answers wins; the loser's task is cancelled.
private final class DeadlineRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var early: Value?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Value, Never>, work: Task<Void, Never>, timer: Task<Void, Never>) {
        let early = state.withLock { state -> Value? in
            if let early = state.early { return early }
            state.continuation = continuation
            state.tasks = [work, timer]
            return nil
        }
        guard let early else { return }
        // An answer came before the race was set up: it wins; stop both sides.
        work.cancel()
        timer.cancel()
        continuation.resume(returning: early)
    }

    func finish(_ value: Value) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Value, Never>?, [Task<Void, Never>]) in
            guard let continuation = state.continuation else {
                if state.tasks.isEmpty, state.early == nil { state.early = value }
                return (nil, [])
            }
            state.continuation = nil
            defer { state.tasks = [] }
            return (continuation, state.tasks)
        }
        guard let continuation else { return }
        continuation.resume(returning: value)
        for task in tasks { task.cancel() }
    }
}
