import Metrics
import Synchronization

/// What a ``RedisClient``'s calls came to. Also exported through swift-metrics as
/// `webimage_redis_calls_total{result=…}` and `webimage_redis_breaker_opens_total`.
public struct RedisCallStats: Sendable, Hashable {
    /// GETs that found the key, and that did not.
    public var hits = 0
    public var misses = 0
    /// Other calls that succeeded.
    public var ok = 0
    /// Calls that failed: no answer in time, a connection failure, an error reply.
    public var timeouts = 0
    public var errors = 0
    /// Calls not made because the circuit breaker was open.
    public var skipped = 0

    public init() {}
}

/// The counters behind ``RedisCallStats``, mirrored into swift-metrics.
final class RedisCallCounters: Sendable {
    enum Result: String, CaseIterable {
        case hit, miss, ok, timeout, error, skipped
    }

    private let stats = Mutex(RedisCallStats())
    private let counters: [Result: Counter]
    private let breakerOpens = Counter(label: "webimage_redis_breaker_opens_total")

    init() {
        counters = Dictionary(uniqueKeysWithValues: Result.allCases.map {
            ($0, Counter(label: "webimage_redis_calls_total", dimensions: [("result", $0.rawValue)]))
        })
    }

    func count(_ result: Result) {
        counters[result]?.increment()
        stats.withLock { stats in
            switch result {
            case .hit: stats.hits += 1
            case .miss: stats.misses += 1
            case .ok: stats.ok += 1
            case .timeout: stats.timeouts += 1
            case .error: stats.errors += 1
            case .skipped: stats.skipped += 1
            }
        }
    }

    func countBreakerOpened() { breakerOpens.increment() }

    var snapshot: RedisCallStats { stats.withLock { $0 } }
}
