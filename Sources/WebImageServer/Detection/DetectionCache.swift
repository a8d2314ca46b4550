import Synchronization
import WebImage

/// Each source's focal points, so every variant of one source detects once: a bounded LRU in
/// memory (points in coordinates normalised to the source, so any decode size reads them), and
/// the detections in flight shared by every caller that asks meanwhile (``SharedTasks``).
final class DetectionCache: Sendable {
    private struct Entries {
        var points: [String: (points: [FocalPoint], used: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let entries = Mutex(Entries())
    private let running = SharedTasks<String, Void, [FocalPoint]?>(whenAbandoned: .keepRunning)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The cached points of `key`, else `detect`'s (shared with concurrent callers; kept unless
    /// it failed, i.e. returned nil). nil when detection failed or the caller was cancelled.
    func points(for key: String, detect: @escaping @Sendable () async -> [FocalPoint]?) async -> [FocalPoint]? {
        if let cached = cached(key) { return cached }
        let found = await running.value(for: key, member: ()) { [self] _ in
            if let cached = cached(key) { return cached }
            let found = await detect()
            if let found { store(found, for: key) }
            return found
        }
        return found ?? nil
    }

    func cached(_ key: String) -> [FocalPoint]? {
        entries.withLock { entries in
            guard let entry = entries.points[key] else { return nil }
            entries.clock += 1
            entries.points[key] = (entry.points, entries.clock)
            return entry.points
        }
    }

    func store(_ points: [FocalPoint], for key: String) {
        entries.withLock { entries in
            entries.clock += 1
            entries.points[key] = (points, entries.clock)
            if entries.points.count > capacity {
                // Evict the least recently used eighth at once: the scan is then rare.
                let drop = entries.points.sorted { $0.value.used < $1.value.used }.prefix(max(1, capacity / 8))
                for (key, _) in drop { entries.points[key] = nil }
            }
        }
    }

    var count: Int { entries.withLock { $0.points.count } }
}
