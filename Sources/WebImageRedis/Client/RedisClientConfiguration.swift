import NIOCore
import NIOSSL

/// How a ``RedisClient`` connects and how quickly it gives up.
public struct RedisClientConfiguration: Sendable {
    public var url: RedisURL
    /// Connections in the pool; calls are spread over them, each pipelined.
    public var poolSize: Int
    /// Each call (connecting included) answers or fails with ``RedisError/timeout`` within this:
    /// a cache tier slower than this is not worth waiting for.
    public var callTimeout: Duration
    /// Connecting and logging in (shared by the calls waiting for that connection).
    public var connectTimeout: Duration
    /// Consecutive failures that open the circuit breaker, and how long it then stays open.
    public var failureThreshold: Int
    public var cooldown: Duration
    public var limits: RESPLimits
    /// For `rediss://`; nil uses NIOSSL's client defaults (system trust roots, hostname checked).
    public var tls: TLSConfiguration?

    public init(
        url: RedisURL, poolSize: Int = 4, callTimeout: Duration = .milliseconds(250), connectTimeout: Duration = .seconds(1),
        failureThreshold: Int = 3, cooldown: Duration = .seconds(5), limits: RESPLimits = .default, tls: TLSConfiguration? = nil
    ) {
        self.url = url
        self.poolSize = max(1, poolSize)
        self.callTimeout = callTimeout
        self.connectTimeout = connectTimeout
        self.failureThreshold = failureThreshold
        self.cooldown = cooldown
        self.limits = limits
        self.tls = tls
    }
}
