import WebImageRedis

/// This instance's result cache in front of the fleet's Redis one: a query asks the local tier
/// first, then Redis, and copies a Redis hit into the local tier (the next ask stays on this
/// machine); a store writes both; a purge removes from both.
public final class TieredResultCache: ResultCaching {
    public let local: any ResultCaching
    public let shared: RedisResultCache

    public init(local: any ResultCaching, shared: RedisResultCache) {
        self.local = local
        self.shared = shared
    }

    public func result(forKey key: String) async -> CachedResult? {
        if let hit = await local.result(forKey: key) { return hit }
        guard let entry = await shared.entry(forKey: key) else { return nil }
        await local.store(entry.result, forKey: key, source: entry.source)
        return entry.result
    }

    /// Both tiers at once: the Redis write costs at most the client's call timeout.
    public func store(_ result: CachedResult, forKey key: String, source: String) async {
        await store(result, forKey: key, sources: [source])
    }

    public func store(_ result: CachedResult, forKey key: String, sources: [String]) async {
        async let localWrite: Void = local.store(result, forKey: key, sources: sources)
        await shared.store(result, forKey: key, sources: sources)
        await localWrite
    }

    /// Removes from both tiers; the count is the larger of the two (a variant is usually in both).
    public func removeResults(forSource source: String) async -> Int {
        async let localCount = local.removeResults(forSource: source)
        let sharedCount = await shared.removeResults(forSource: source)
        return max(await localCount, sharedCount)
    }
}
