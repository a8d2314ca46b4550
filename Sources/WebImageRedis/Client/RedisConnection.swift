import NIOCore
import NIOPosix
import NIOSSL

/// One connection to Redis: commands are written as soon as they are asked for (pipelining) and
/// their replies matched first in, first out. Logs in (`AUTH`) and selects the database on
/// connect; fails every pending reply when it closes.
public final class RedisConnection: Sendable {
    public let channel: any Channel
    /// Touched on the channel's event loop only.
    private let handler: NIOLoopBound<RedisChannelHandler>

    private init(channel: any Channel, handler: NIOLoopBound<RedisChannelHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects to `url`, logs in and selects its database, all within `timeout` (a server that
    /// accepts but never answers — stopped, say — fails here instead of leaving a dead connection).
    /// `onPush` receives pub/sub `message`s (a subscriber connection).
    public static func connect(
        to url: RedisURL, on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tls: NIOSSLContext? = nil, limits: RESPLimits = .default, timeout: TimeAmount = .seconds(1),
        onPush: (@Sendable (RESPValue) -> Void)? = nil
    ) -> EventLoopFuture<RedisConnection> {
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if url.usesTLS {
                        guard let tls else { throw RedisError.connectionFailed("rediss:// needs a TLS context") }
                        try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: url.sniHostname))
                    }
                    try sync.addHandler(ByteToMessageHandler(RESPMessageDecoder(decoder: RESPDecoder(limits: limits))))
                    try sync.addHandler(RedisChannelHandler(onPush: onPush))
                }
            }
        // An address needs no lookup; NIO would still queue a getaddrinfo on Dispatch, which a busy process delays.
        let address = try? SocketAddress(ipAddress: url.host, port: url.port)
        return (address.map { bootstrap.connect(to: $0) } ?? bootstrap.connect(host: url.host, port: url.port))
            .flatMapErrorThrowing { throw RedisError.connectionFailed("\(url.host):\(url.port): \($0)") }
            .flatMap { channel in
                let connection = channel.eventLoop.makeCompletedFuture {
                    let handler = try channel.pipeline.syncOperations.handler(type: RedisChannelHandler.self)
                    return RedisConnection(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop))
                }
                return connection.flatMap { $0.logIn(url, timeout: timeout) }
            }
    }

    /// `AUTH` and `SELECT` as one pipelined write; the connection closes if either fails or the
    /// server does not answer in time.
    private func logIn(_ url: RedisURL, timeout: TimeAmount) -> EventLoopFuture<RedisConnection> {
        var commands: [RedisCommand] = []
        if let password = url.password {
            commands.append(url.user.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password))
        }
        if url.database != 0 { commands.append(RedisCommand("SELECT", String(url.database))) }
        // Over TLS, one command at least: its reply waits for the handshake, so a refused
        // certificate fails the connect with its reason instead of a later call with "closed".
        if url.usesTLS, commands.isEmpty { commands.append(RedisCommand("PING")) }
        guard !commands.isEmpty else { return channel.eventLoop.makeSucceededFuture(self) }
        let sent = commands
        let channel = self.channel
        let deadline = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        return EventLoopFuture.whenAllComplete(send(sent), on: channel.eventLoop)
            .flatMapThrowing { results in
                deadline.cancel()
                for (command, result) in zip(sent, results) {
                    switch result {
                    case .success(.error(let message)): throw RedisError.connectionFailed("\(command.name) refused: \(message)")
                    case .success: continue
                    case .failure(RedisError.connectionClosed):
                        throw RedisError.connectionFailed("closed before answering \(command.name): no answer in time, or a TLS handshake refused")
                    case .failure(let error): throw error
                    }
                }
                return self
            }
            .flatMapErrorThrowing { error in
                channel.close(promise: nil)
                throw error
            }
    }

    public var isActive: Bool { channel.isActive }

    /// Writes `command`; the future has its reply (an error reply is a `.error` value, not a failure).
    public func send(_ command: RedisCommand) -> EventLoopFuture<RESPValue> {
        send([command])[0]
    }

    /// Writes `commands` in one write and one flush; the futures have their replies in order.
    public func send(_ commands: [RedisCommand]) -> [EventLoopFuture<RESPValue>] {
        var bytes = channel.allocator.buffer(capacity: 64 * commands.count)
        for command in commands { RESPEncoder.write(command, into: &bytes) }
        let replies = commands.map { _ in channel.eventLoop.makePromise(of: RESPValue.self) }
        // A write to a closed channel never reaches the handler: fail the replies here (a reply
        // the handler already failed ignores the second failure). A TLS handshake that fails
        // fails the writes it held back with its own error: say that, not "closed".
        channel.writeAndFlush(RedisOutbound(bytes: bytes, replies: replies)).whenFailure { error in
            let failure: RedisError = switch error {
            case let redis as RedisError: redis
            case is ChannelError: .connectionClosed
            default: .connectionFailed("\(error)")
            }
            replies.forEach { $0.fail(failure) }
        }
        return replies.map(\.futureResult)
    }

    /// Closes the connection if replies are owed and nothing has been read for `stall`: the
    /// server is stopped or the network dropped it, and the next call should get a fresh one.
    func closeIfStuck(stall: TimeAmount) {
        let (channel, handler) = (self.channel, self.handler)
        channel.eventLoop.execute {
            let state = handler.value
            if state.pendingCount > 0, NIODeadline.now() - state.lastProgress >= stall { channel.close(promise: nil) }
        }
    }

    public func close() -> EventLoopFuture<Void> {
        channel.close().flatMapErrorThrowing { error in
            if case ChannelError.alreadyClosed = error { return }
            throw error
        }
    }
}

extension RedisURL {
    /// The host for TLS's server name indication; an IP address is not sent (NIOSSL refuses it).
    var sniHostname: String? {
        host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
    }
}
