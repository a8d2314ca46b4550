import Synchronization

/// Identical requests at once share one piece of work: the first caller's task runs, the others
/// await the same task (100 cold requests for one variant → one encode). A caller going away does
/// not cancel the work the others still wait for.
final class SharedWork<Value: Sendable>: Sendable {
    private let running = Mutex<[String: Task<Value, any Error>]>([:])
    private let joinedCount = Mutex(0)
    private let onJoin: @Sendable () -> Void

    /// `onJoin` hears each caller that joins work already running (the merged-requests metric).
    init(onJoin: @escaping @Sendable () -> Void = {}) {
        self.onJoin = onJoin
    }

    /// How many callers joined work already running.
    var joined: Int { joinedCount.withLock { $0 } }

    func value(forKey key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = running.withLock { running -> Task<Value, any Error> in
            if let task = running[key] {
                joinedCount.withLock { $0 += 1 }
                onJoin()
                return task
            }
            let task = Task { [weak self] in
                defer { self?.running.withLock { _ = $0.removeValue(forKey: key) } }
                return try await work()
            }
            running[key] = task
            return task
        }
        return try await task.value
    }
}
