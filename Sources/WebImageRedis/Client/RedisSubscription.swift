import NIOCore

/// A message received on a subscribed channel.
public struct RedisPubSubMessage: Sendable, Hashable {
    public var channel: String
    public var payload: ByteBuffer

    public init(channel: String, payload: ByteBuffer) {
        self.channel = channel
        self.payload = payload
    }

    /// The payload as UTF-8 text.
    public var string: String { String(buffer: payload) }

    /// `["message", channel, payload]`, as Redis pushes it.
    init?(_ push: RESPValue) {
        guard case .array(let parts) = push, parts.count == 3, let channel = parts[1].string,
              let payload = parts[2].buffer else { return nil }
        self.init(channel: channel, payload: payload)
    }
}

extension RedisClient {
    /// How often an idle subscriber connection is checked with `PING` (a stopped server or a
    /// dropped network sends nothing, so silence alone says nothing).
    static let subscriberPingInterval: Duration = .seconds(2)

    /// The messages published on `channel`, on a connection of its own (a subscribed connection
    /// can run no other commands). When that connection dies it is made again, with backoff up to
    /// 2 s, for as long as the stream is consumed; messages published while it is down are lost —
    /// Redis pub/sub keeps nothing. Ends when the consumer stops (the stream is dropped or its
    /// task cancelled) or the client shuts down.
    public func subscribe(channel: String) -> AsyncStream<RedisPubSubMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: RedisPubSubMessage.self, bufferingPolicy: .bufferingNewest(4096))
        let task = Task { [self] in
            var backoff: Duration = .milliseconds(50)
            while !Task.isCancelled {
                if await subscribeOnce(channel: channel, continuation: continuation) { backoff = .milliseconds(50) }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(2))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        subscriptions.withLock { tasks in
            tasks.removeAll { $0.isCancelled }
            tasks.append(task)
        }
        return stream
    }

    /// Connects, subscribes and holds the connection until it dies or the task is cancelled;
    /// returns whether the subscription was made.
    private func subscribeOnce(channel: String, continuation: AsyncStream<RedisPubSubMessage>.Continuation) async -> Bool {
        let timeout = TimeAmount(configuration.connectTimeout)
        let connecting = RedisConnection.connect(
            to: configuration.url, on: group, tls: tlsContext, limits: configuration.limits, timeout: timeout,
            onPush: { push in
                if let message = RedisPubSubMessage(push) { continuation.yield(message) }
            })
        guard let connection = try? await connecting.get() else { return false }
        return await withTaskCancellationHandler {
            guard (try? await Self.answer(connection, RedisCommand("SUBSCRIBE", channel), within: timeout)) != nil else {
                connection.channel.close(promise: nil)
                return false
            }
            logger.debug("subscribed", metadata: ["channel": "\(channel)"])
            while connection.isActive, !Task.isCancelled {
                try? await Task.sleep(for: Self.subscriberPingInterval)
                if (try? await Self.answer(connection, RedisCommand("PING"), within: timeout)) == nil {
                    connection.channel.close(promise: nil)
                }
            }
            connection.channel.close(promise: nil)
            return true
        } onCancel: {
            connection.channel.close(promise: nil)
        }
    }

    /// `command`'s reply, closing the connection (which fails the reply) when none comes within `timeout`.
    private static func answer(_ connection: RedisConnection, _ command: RedisCommand, within timeout: TimeAmount) async throws -> RESPValue {
        let channel = connection.channel
        let deadline = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer { deadline.cancel() }
        return try await connection.send(command).get()
    }
}
