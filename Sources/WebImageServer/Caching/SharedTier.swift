import Foundation
import Logging
import WebImage
import WebImageRedis

/// A fleet's shared tier on Redis (``ImageServerConfiguration/redisURL``, `WEBIMAGE_REDIS_URL`):
/// source bytes read after the local memory and disk tiers and written after every fetch, variants
/// after the local result cache, and purges told to every instance. A Redis that is down or slow
/// costs each call its timeout at most and is then skipped by the client's circuit breaker: it
/// never fails a request.
final class SharedTier: Sendable {
    let client: RedisClient
    let sources: RedisImageCache
    let results: RedisResultCache
    let purges: RedisPurgeChannel

    init(url: RedisURL, callTimeout: Duration, logger: Logger) throws {
        client = try RedisClient(configuration: RedisClientConfiguration(url: url, callTimeout: callTimeout), logger: logger)
        sources = RedisImageCache(client: client, namespace: "sources")
        results = RedisResultCache(client: client)
        purges = RedisPurgeChannel(client: client)
    }

    /// The source cache the manager reads: the local tiers first, then Redis; a fetch is stored in both.
    func sourceCaches(over local: ImageCache) -> ImageCachesManager {
        var policies = ImageCachesManager.Policies()
        policies.store = .concurrent
        // The last cache is asked first.
        return ImageCachesManager(caches: [sources, local], policies: policies)
    }

    /// `webimage_redis_*` series for `/metrics`, from the client's own counts.
    var metricsText: String {
        let name = RedisCallStats.metricName
        return "# HELP \(name) Calls to the shared Redis tier by outcome\n# TYPE \(name) counter\n"
            + client.stats.byResult.map { "\(name){result=\"\($0.result)\"} \($0.count)\n" }.joined()
    }

    func shutdown() async {
        await client.shutdown()
    }
}
