import Synchronization

/// At most `width` variants made at once and `queueLimit` waiting; beyond that a request is
/// turned away at once (429) instead of queueing without end. Draining turns everyone away.
final class WorkAdmission: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Bool, Never>] = []
        var draining = false
        /// False from the start of a drain's grace period: `/readyz` says 503 while work is still taken.
        var ready = true
    }

    private let width: Int
    private let queueLimit: Int
    private let state = Mutex(State())

    init(width: Int, queueLimit: Int) {
        self.width = max(1, width)
        self.queueLimit = max(0, queueLimit)
    }

    enum Refusal: Error { case full, draining }

    /// Runs `work` in its turn, or refuses.
    func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if state.draining { return false }
                if state.running < width {
                    state.running += 1
                    return true
                }
                if state.waiting.count >= queueLimit { return false }
                state.waiting.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
        guard admitted else { throw state.withLock { $0.draining } ? Refusal.draining : Refusal.full }
        defer { leave() }
        return try await work()
    }

    /// Refuses new work and everything still waiting; running work finishes.
    func drain() {
        let waiting = state.withLock { state in
            state.draining = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    var isDraining: Bool { state.withLock { $0.draining } }

    /// Tells load balancers to move on (`/readyz` 503) while work is still admitted.
    func markUnready() { state.withLock { $0.ready = false } }

    /// Whether `/readyz` says 200: not draining and not told to stop looking ready.
    var isReady: Bool { state.withLock { $0.ready && !$0.draining } }
    var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()  // the slot passes on
        }
        next?.resume(returning: true)
    }
}
