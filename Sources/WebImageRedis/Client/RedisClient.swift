import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A Redis client for a cache tier: a small pool of pipelined connections, made on demand and
/// made again after a connection dies; every call answers within
/// ``RedisClientConfiguration/callTimeout`` (a down or stopped Redis fails calls, never hangs
/// them); a ``CircuitBreaker`` skips Redis for a cooldown after consecutive failures.
public final class RedisClient: Sendable {
    public let configuration: RedisClientConfiguration
    /// Opened by consecutive transport failures (timeouts, refused connections), not by error replies.
    public let breaker: CircuitBreaker
    let group: any EventLoopGroup
    let tlsContext: NIOSSLContext?
    let logger: Logger
    private let counters = RedisCallCounters()
    private let pool: Mutex<PoolState>
    /// Subscriptions' reconnect loops, cancelled by ``shutdown()``.
    let subscriptions = Mutex<[Task<Void, Never>]>([])

    private enum Slot {
        case empty
        case connecting(EventLoopFuture<RedisConnection>)
        case ready(RedisConnection)
    }

    private struct PoolState {
        var slots: [Slot]
        var next = 0
        var isShutDown = false
    }

    /// A client for `configuration.url`. Nothing connects until the first call.
    /// Throws only when `rediss://` is asked for and the TLS configuration is unusable.
    public init(
        configuration: RedisClientConfiguration, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "webimage.redis")
    ) throws {
        self.configuration = configuration
        group = eventLoopGroup
        self.logger = logger
        breaker = CircuitBreaker(failureThreshold: configuration.failureThreshold, cooldown: configuration.cooldown)
        if configuration.url.usesTLS {
            tlsContext = try NIOSSLContext(configuration: configuration.tls ?? .makeClientConfiguration())
        } else {
            tlsContext = nil
        }
        pool = Mutex(PoolState(slots: Array(repeating: .empty, count: configuration.poolSize)))
    }

    /// `RedisClient(url: "redis://127.0.0.1:6379/0")` with the default pool, timeout and breaker.
    public convenience init(url: String) throws {
        try self.init(configuration: RedisClientConfiguration(url: try RedisURL(url)))
    }

    /// What the calls so far came to.
    public var stats: RedisCallStats { counters.snapshot }

    // MARK: - Commands

    /// `GET key`: the value, or nil when there is none.
    public func get(_ key: String) async throws(RedisError) -> ByteBuffer? {
        let reply = try await single(RedisCommand("GET", key), counted: false)
        switch reply {
        case .bulkString(let value):
            counters.count(.hit)
            return value
        case .null:
            counters.count(.miss)
            return nil
        default:
            counters.count(.error)
            throw .unexpectedReply("GET answered \(reply)")
        }
    }

    /// `SET key value [PX ttl]`.
    public func set(_ key: String, to value: ByteBuffer, expiresIn ttl: Duration? = nil) async throws(RedisError) {
        var arguments = [ByteBuffer(string: "SET"), ByteBuffer(string: key), value]
        if let ttl { arguments += [ByteBuffer(string: "PX"), ByteBuffer(string: String(Self.milliseconds(ttl)))] }
        _ = try await single(RedisCommand(arguments: arguments))
    }

    /// `DEL key…`: how many existed.
    @discardableResult
    public func del(_ keys: [String]) async throws(RedisError) -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await integer(RedisCommand("DEL", keys))
    }

    /// `EXISTS key`.
    public func exists(_ key: String) async throws(RedisError) -> Bool {
        try await integer(RedisCommand("EXISTS", key)) > 0
    }

    /// `SADD key member…`: how many were new.
    @discardableResult
    public func sadd(_ key: String, members: [String]) async throws(RedisError) -> Int {
        guard !members.isEmpty else { return 0 }
        return try await integer(RedisCommand("SADD", [key] + members))
    }

    /// `SMEMBERS key`.
    public func smembers(_ key: String) async throws(RedisError) -> [String] {
        let reply = try await single(RedisCommand("SMEMBERS", key))
        guard let members = reply.array else { throw .unexpectedReply("SMEMBERS answered \(reply)") }
        return members.compactMap(\.string)
    }

    /// `PEXPIRE key ms`: whether the key exists.
    @discardableResult
    public func expire(_ key: String, in ttl: Duration) async throws(RedisError) -> Bool {
        try await integer(RedisCommand("PEXPIRE", key, String(Self.milliseconds(ttl)))) == 1
    }

    /// `PUBLISH channel message`: how many subscribers received it.
    @discardableResult
    public func publish(_ message: String, to channel: String) async throws(RedisError) -> Int {
        try await integer(RedisCommand("PUBLISH", channel, message))
    }

    /// Any command; an error reply throws ``RedisError/server(_:)``.
    @discardableResult
    public func send(_ command: RedisCommand) async throws(RedisError) -> RESPValue {
        try await single(command)
    }

    /// Several commands in one write on one connection, their replies in order; error replies are
    /// left in place as ``RESPValue/error(_:)`` (one refused command does not lose the others' replies).
    /// The whole batch shares one call timeout.
    public func pipeline(_ commands: [RedisCommand]) async throws(RedisError) -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        let replies = try await execute(commands)
        counters.count(.ok)
        return replies
    }

    /// Closes the pool's connections and ends subscriptions; later calls fail with ``RedisError/shutDown``.
    public func shutdown() async {
        let slots = pool.withLock { state in
            state.isShutDown = true
            defer { state.slots = state.slots.map { _ in .empty } }
            return state.slots
        }
        subscriptions.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks.removeAll()
        }
        for slot in slots {
            switch slot {
            case .ready(let connection): try? await connection.close().get()
            case .connecting(let future): try? await future.get().close().get()
            case .empty: break
            }
        }
    }

    // MARK: - Calls

    private func integer(_ command: RedisCommand) async throws(RedisError) -> Int {
        let reply = try await single(command)
        guard let value = reply.integer else { throw .unexpectedReply("\(command.name) answered \(reply)") }
        return value
    }

    /// One command; counts `ok` unless the caller counts the outcome itself.
    private func single(_ command: RedisCommand, counted: Bool = true) async throws(RedisError) -> RESPValue {
        let reply = try await execute([command])[0]
        if case .error(let message) = reply {
            counters.count(.error)
            throw .server(message)
        }
        if counted { counters.count(.ok) }
        return reply
    }

    /// Sends `commands` as one pipelined write under the breaker and the call timeout; counts
    /// skips, timeouts and transport failures.
    private func execute(_ commands: [RedisCommand]) async throws(RedisError) -> [RESPValue] {
        guard let permit = breaker.acquire() else {
            counters.count(.skipped)
            throw .circuitOpen
        }
        let call = PendingCall()
        let timeout = configuration.callTimeout
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[RESPValue], RedisError>, Never>) in
                call.start(continuation)
                // One hop onto the connection's event loop for the timer and the write together,
                // not one wake-up of the loop for each.
                let connecting = connection()
                let loop = connecting.eventLoop
                loop.execute {
                    let timer = loop.scheduleTask(in: TimeAmount(timeout)) { call.finish(.failure(.timeout)) }
                    connecting.flatMap { connection in
                        call.connection = connection
                        return EventLoopFuture.whenAllSucceed(connection.send(commands), on: connection.channel.eventLoop)
                    }.whenComplete { result in
                        timer.cancel()
                        call.finish(result.mapError(RedisError.init(wrapping:)))
                    }
                }
            }
        } onCancel: {
            call.finish(.failure(.cancelled))
        }
        switch result {
        case .success(let replies):
            breaker.recordSuccess()
            return replies
        case .failure(let error):
            if error == .timeout { call.connection?.closeIfStuck(stall: TimeAmount(timeout)) }
            if error.isTransportFailure {
                if breaker.recordFailure(permit) {
                    counters.countBreakerOpened()
                    logger.warning("Redis tier skipped for \(configuration.cooldown) after failures", metadata: ["error": "\(error)"])
                }
            } else {
                breaker.release(permit)
            }
            counters.count(error == .timeout ? .timeout : .error)
            throw error
        }
    }

    /// A live connection from the pool, round robin; a slot whose connection died connects again,
    /// and callers arriving meanwhile wait for that one connect.
    private func connection() -> EventLoopFuture<RedisConnection> {
        enum Pick {
            case use(EventLoopFuture<RedisConnection>)
            case connect(Int, EventLoopPromise<RedisConnection>)
            case shutDown
        }
        let pick = pool.withLock { state -> Pick in
            guard !state.isShutDown else { return .shutDown }
            let index = state.next
            state.next = (index + 1) % state.slots.count
            switch state.slots[index] {
            case .ready(let connection) where connection.isActive:
                return .use(connection.channel.eventLoop.makeSucceededFuture(connection))
            case .connecting(let future):
                return .use(future)
            case .ready, .empty:
                let promise = group.any().makePromise(of: RedisConnection.self)
                state.slots[index] = .connecting(promise.futureResult)
                return .connect(index, promise)
            }
        }
        switch pick {
        case .use(let future):
            return future
        case .shutDown:
            return group.any().makeFailedFuture(RedisError.shutDown)
        case .connect(let index, let promise):
            RedisConnection.connect(
                to: configuration.url, on: group, tls: tlsContext, limits: configuration.limits,
                timeout: TimeAmount(configuration.connectTimeout)
            ).cascade(to: promise)
            promise.futureResult.whenComplete { result in
                self.pool.withLock { state in
                    guard case .connecting(let future) = state.slots[index], future == promise.futureResult else { return }
                    state.slots[index] = (try? result.get()).map(Slot.ready) ?? .empty
                }
            }
            return promise.futureResult
        }
    }

    /// `duration` in whole milliseconds, at least 1 (Redis refuses a PX or PEXPIRE of 0).
    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

/// One call's answer-once gate: the reply, the timeout and a cancel race to finish it.
private final class PendingCall: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<[RESPValue], RedisError>, Never>?
        var early: Result<[RESPValue], RedisError>?
        var finished = false
        var connection: RedisConnection?
    }

    private let state = Mutex(State())

    var connection: RedisConnection? {
        get { state.withLock { $0.connection } }
        set { state.withLock { $0.connection = newValue } }
    }

    func start(_ continuation: CheckedContinuation<Result<[RESPValue], RedisError>, Never>) {
        let early = state.withLock { state -> Result<[RESPValue], RedisError>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func finish(_ result: Result<[RESPValue], RedisError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<[RESPValue], RedisError>, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            guard let continuation = state.continuation else {
                state.early = result  // cancelled before the call started
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }
}

extension RedisError {
    /// A channel or connect failure as a ``RedisError``.
    init(wrapping error: any Error) {
        if let redis = error as? RedisError {
            self = redis
        } else if error is RESPDecodingError {
            self = .protocolViolation("\(error)")
        } else {
            self = .connectionFailed("\(error)")
        }
    }
}
