import DequeModule
import Synchronization

/// At most `width` variants made at once, holding at most `memoryBytes` of planned memory between
/// them (each request reserves its ``CostPlan`` peak), and `queueLimit` waiting; beyond that a
/// request is turned away at once (429) instead of queueing without end. The queue is first come,
/// first served: a large request at its head is not overtaken by small ones forever. A waiter
/// whose task is cancelled (its deadline passed) leaves the queue at once. Draining turns everyone
/// away.
final class WorkAdmission: Sendable {
    private struct Waiter {
        let id: UInt64
        let bytes: Int
        /// Taken in before a drain began: the drain lets it finish.
        let started: Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var reservedBytes = 0
        var waiting: Deque<Waiter> = []
        var nextID: UInt64 = 0
        /// Waiters cancelled before they were queued.
        var cancelled: Set<UInt64> = []
        var draining = false
        /// False from the start of a drain's grace period: `/readyz` says 503 while work is still taken.
        var ready = true

        /// Whether `bytes` more fit now. One request always runs alone, whatever it reserved.
        func fits(_ bytes: Int, width: Int, memoryBytes: Int) -> Bool {
            running < width && (running == 0 || reservedBytes <= memoryBytes - min(bytes, memoryBytes))
        }
    }

    private let width: Int
    private let queueLimit: Int
    /// Planned bytes all running requests may hold together.
    let memoryBytes: Int
    private let state = Mutex(State())

    init(width: Int, queueLimit: Int, memoryBytes: Int = .max) {
        self.width = max(1, width)
        self.queueLimit = max(0, queueLimit)
        self.memoryBytes = max(1, memoryBytes)
    }

    enum Refusal: Error { case full, draining, cancelled }

    /// Runs `work` in its turn with `bytes` reserved, or refuses. `started`: the request was taken
    /// in before a drain began (its source was being fetched), so the drain lets it through.
    func run<T: Sendable>(bytes: Int = 0, started: Bool = false, _ work: () async throws -> T) async throws -> T {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let admitted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    if (state.draining && !started) || state.cancelled.remove(id) != nil { return false }
                    if state.waiting.isEmpty, state.fits(bytes, width: width, memoryBytes: memoryBytes) {
                        state.running += 1
                        state.reservedBytes += bytes
                        return true
                    }
                    if state.waiting.count >= queueLimit { return false }
                    state.waiting.append(Waiter(id: id, bytes: bytes, started: started, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let (cancelled, admitted) = state.withLock { state -> (Waiter?, [Waiter]) in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return (nil, [])
                }
                // Leaving from the head of the queue may let those behind it in.
                return (state.waiting.remove(at: index), Self.admitWaiters(&state, width: width, memoryBytes: memoryBytes))
            }
            cancelled?.continuation.resume(returning: false)
            for waiter in admitted { waiter.continuation.resume(returning: true) }
        }
        guard admitted else {
            let (draining, _) = state.withLock { ($0.draining, $0.cancelled.remove(id)) }
            if draining, !started { throw Refusal.draining }
            throw Task.isCancelled ? Refusal.cancelled : Refusal.full
        }
        state.withLock { _ = $0.cancelled.remove(id) }
        defer { leave(bytes: bytes) }
        return try await work()
    }

    /// Refuses new work and everything still waiting but requests already started; running work finishes.
    func drain() {
        let waiting = state.withLock { state in
            state.draining = true
            let refused = state.waiting.filter { !$0.started }
            state.waiting.removeAll { !$0.started }
            return refused
        }
        for waiter in waiting { waiter.continuation.resume(returning: false) }
    }

    var isDraining: Bool { state.withLock { $0.draining } }

    /// Tells load balancers to move on (`/readyz` 503) while work is still admitted.
    func markUnready() { state.withLock { $0.ready = false } }

    /// Whether `/readyz` says 200: not draining and not told to stop looking ready.
    var isReady: Bool { state.withLock { $0.ready && !$0.draining } }
    var counts: (running: Int, waiting: Int, reservedBytes: Int) {
        state.withLock { ($0.running, $0.waiting.count, $0.reservedBytes) }
    }

    /// Frees a request's slot and bytes, and lets in as many waiters, in order, as now fit.
    private func leave(bytes: Int) {
        let admitted = state.withLock { state -> [Waiter] in
            state.running -= 1
            state.reservedBytes -= bytes
            return Self.admitWaiters(&state, width: width, memoryBytes: memoryBytes)
        }
        for waiter in admitted { waiter.continuation.resume(returning: true) }
    }

    /// Takes as many waiters from the head of the queue, in order, as now fit (to be resumed
    /// once the lock is released).
    private static func admitWaiters(_ state: inout State, width: Int, memoryBytes: Int) -> [Waiter] {
        var admitted: [Waiter] = []
        while let next = state.waiting.first, state.fits(next.bytes, width: width, memoryBytes: memoryBytes) {
            state.waiting.removeFirst()
            state.running += 1
            state.reservedBytes += next.bytes
            admitted.append(next)
        }
        return admitted
    }
}
