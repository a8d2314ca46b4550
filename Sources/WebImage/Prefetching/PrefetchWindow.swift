import Synchronization

/// The prefetcher's window (SD's shared prefetch queue width): at most `limit` loads in flight
/// across every running prefetch call; the next waiting load starts as one ends, in order.
final class PrefetchWindow: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var inFlight = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Waits for a place; `false` when the task was cancelled while waiting (no place taken).
    func enter(limit: Int) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let admitted = state.withLock { state -> Bool in
                    if state.inFlight < max(1, limit), state.waiters.isEmpty {
                        state.inFlight += 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if admitted { continuation.resume(returning: true) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives a place back; the longest waiter (if any) takes it.
    func leave(limit: Int) {
        let next = state.withLock { state -> Waiter? in
            state.inFlight -= 1
            guard state.inFlight < max(1, limit), !state.waiters.isEmpty else { return nil }
            state.inFlight += 1
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }
}
