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

    /// The metric the counts are exported as, labelled `result`.
    public static let metricName = "webimage_redis_calls_total"

    /// Each count under its `result` label, in a fixed order (for a metrics page of one's own).
    public var byResult: [(result: String, count: Int)] {
        RedisCallCounters.Result.allCases.map { ($0.rawValue, self[$0]) }
    }

    subscript(result: RedisCallCounters.Result) -> Int {
        get {
            switch result {
            case .hit: hits
            case .miss: misses
            case .ok: ok
            case .timeout: timeouts
            case .error: errors
            case .skipped: skipped
            }
        }
        set {
            switch result {
            case .hit: hits = newValue
            case .miss: misses = newValue
            case .ok: ok = newValue
            case .timeout: timeouts = newValue
            case .error: errors = newValue
            case .skipped: skipped = newValue
            }
        }
    }
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
            ($0, Counter(label: RedisCallStats.metricName, dimensions: [("result", $0.rawValue)]))
        })
    }

    func count(_ result: Result) {
        counters[result]?.increment()
        stats.withLock { $0[result] += 1 }
    }

    func countBreakerOpened() { breakerOpens.increment() }

    var snapshot: RedisCallStats { stats.withLock { $0 } }
}
