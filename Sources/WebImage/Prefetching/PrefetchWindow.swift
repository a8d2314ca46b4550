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

        /// Takes a place if one is free and nobody waits for it before us.
        mutating func admit(limit: Int) -> Bool {
            guard inFlight < max(1, limit), waiters.isEmpty else { return false }
            inFlight += 1
            return true
        }
    }

    private let state = Mutex(State())

    /// Waits for a place; `false` when the task was cancelled while waiting (no place taken).
    nonisolated(nonsending) func enter(limit: Int) async -> Bool {
        // A free place is taken without suspending: one prefetch call never has more workers
        // than places, so this is every load of it (a suspension is a hop through the executor).
        let id = state.withLock { state -> UInt64? in
            if state.admit(limit: limit) { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let admitted = state.withLock { state -> Bool in
                    if state.admit(limit: limit) { return true }
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
