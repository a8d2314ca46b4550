import Synchronization

/// Runs `contenders` at once and answers with the first non-nil value — `nil` once every one
/// returned nil. The one "first answer wins" race: the cache manager's concurrent query and the
/// server's deadline. With `cancellingLosers` the rest are cancelled once it is decided;
/// otherwise they run to their end in the background. Cancelling the caller cancels them all.
package func race<Value: Sendable>(
    _ contenders: [@Sendable () async -> Value?], cancellingLosers: Bool
) async -> Value? {
    guard !contenders.isEmpty else { return nil }
    let race = Race<Value>(count: contenders.count)
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            race.start(continuation, tasks: contenders.map { contender in
                Task { race.settle(await contender(), cancellingLosers: cancellingLosers) }
            })
        }
    } onCancel: {
        race.cancelAll()
    }
}

private final class Race<Value: Sendable>: Sendable {
    private struct State {
        var remaining: Int
        var continuation: CheckedContinuation<Value?, Never>?
        /// Decided before ``start(_:tasks:)`` ran: the answer waits here for the continuation.
        var decided: Value??
        var tasks: [Task<Void, Never>] = []
        var cancelled = false
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(remaining: count)) }

    func start(_ continuation: CheckedContinuation<Value?, Never>, tasks: [Task<Void, Never>]) {
        let (decided, cancelled) = state.withLock { state -> (Value??, Bool) in
            state.tasks = tasks
            if state.decided == nil { state.continuation = continuation }
            return (state.decided, state.cancelled)
        }
        if cancelled { tasks.forEach { $0.cancel() } }
        if let decided { continuation.resume(returning: decided) }
    }

    func settle(_ answer: Value?, cancellingLosers: Bool) {
        let (continuation, decided, losers) = state.withLock { state -> (CheckedContinuation<Value?, Never>?, Value??, [Task<Void, Never>]) in
            state.remaining -= 1
            guard state.decided == nil, answer != nil || state.remaining == 0 else { return (nil, nil, []) }
            state.decided = .some(answer)
            defer { state.continuation = nil }
            return (state.continuation, .some(answer), cancellingLosers ? state.tasks : [])
        }
        if let continuation, let decided { continuation.resume(returning: decided) }
        losers.forEach { $0.cancel() }
    }

    func cancelAll() {
        state.withLock { state in
            state.cancelled = true
            return state.tasks
        }.forEach { $0.cancel() }
    }
}
