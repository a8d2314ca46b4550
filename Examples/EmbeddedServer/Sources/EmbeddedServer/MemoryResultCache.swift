import Synchronization
import WebImageServer

/// The application's own result cache: variants in memory, at most `limit` bytes, the oldest
/// dropped first. Anything that keeps ``CachedResult``s by key can stand here (Redis, S3, a CDN's API).
final class MemoryResultCache: ResultCaching {
    private struct Entry {
        var result: CachedResult
        var source: String
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var bytes = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int = 64 << 20) {
        self.limit = limit
    }

    func result(forKey key: String) async -> CachedResult? {
        state.withLock { $0.entries[key]?.result }
    }

    func store(_ result: CachedResult, forKey key: String, source: String) async {
        state.withLock { state in
            if let old = state.entries.updateValue(Entry(result: result, source: source), forKey: key) {
                state.bytes -= old.result.data.count
            } else {
                state.order.append(key)
            }
            state.bytes += result.data.count
            while state.bytes > limit, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.bytes -= state.entries.removeValue(forKey: oldest)?.result.data.count ?? 0
            }
        }
    }

    func removeResults(forSource source: String) async -> Int {
        state.withLock { state in
            let keys = state.entries.filter { $0.value.source == source }.map(\.key)
            for key in keys { state.bytes -= state.entries.removeValue(forKey: key)?.result.data.count ?? 0 }
            state.order.removeAll { keys.contains($0) }
            return keys.count
        }
    }

    /// Variants held now.
    var count: Int { state.withLock { $0.entries.count } }
}
