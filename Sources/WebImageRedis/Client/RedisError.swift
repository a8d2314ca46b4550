/// Why a Redis call did not answer. ``RedisImageCache`` and the server's result cache turn every
/// one of these into a miss or a skipped write; ``RedisClient`` callers see them.
public enum RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No reply within the call's timeout (a slow, stopped or unreachable server).
    case timeout
    /// The circuit breaker is open: the tier is skipped until its cooldown ends.
    case circuitOpen
    /// Could not connect (refused, DNS, TLS) or log in.
    case connectionFailed(String)
    /// The connection went away with the reply still owed.
    case connectionClosed
    /// The server answered with an error reply (`-ERR …`, `-WRONGTYPE …`): it is up, the command was refused.
    case server(String)
    /// The bytes were not RESP we accept (a bound in ``RESPLimits`` was crossed, or the stream broke).
    case protocolViolation(String)
    /// A reply of a type the command never returns.
    case unexpectedReply(String)
    /// The client was shut down.
    case shutDown
    /// The calling task was cancelled.
    case cancelled

    /// Whether this says the server is unhealthy (counts toward opening the circuit breaker); an
    /// error reply or a cancelled caller does not.
    public var isTransportFailure: Bool {
        switch self {
        case .timeout, .connectionFailed, .connectionClosed, .protocolViolation: true
        case .circuitOpen, .server, .unexpectedReply, .shutDown, .cancelled: false
        }
    }

    public var description: String {
        switch self {
        case .timeout: "Redis did not answer within the call timeout"
        case .circuitOpen: "Redis tier skipped: the circuit breaker is open after consecutive failures"
        case .connectionFailed(let why): "could not connect to Redis: \(why)"
        case .connectionClosed: "the Redis connection closed before the reply"
        case .server(let message): "Redis refused the command: \(message)"
        case .protocolViolation(let why): "Redis sent bytes we do not accept: \(why)"
        case .unexpectedReply(let what): "unexpected Redis reply: \(what)"
        case .shutDown: "the Redis client is shut down"
        case .cancelled: "the Redis call was cancelled"
        }
    }
}
