/// Fleet-wide purge on Redis pub/sub: an instance that purges a source publishes it on
/// `webimage:purge`; every instance listening (the publisher too) hears it and drops its local
/// copies. Delivery is at most once: an instance whose subscriber connection is down at that
/// moment misses it (Redis pub/sub keeps nothing), so local tiers still need their own TTLs.
public final class RedisPurgeChannel: Sendable {
    public static let defaultChannel = "webimage:purge"

    public let client: RedisClient
    public let channel: String

    public init(client: RedisClient, channel: String = RedisPurgeChannel.defaultChannel) {
        self.client = client
        self.channel = channel
    }

    /// Tells every listening instance to drop `source`; returns how many received it, or nil
    /// when Redis could not be reached (the purge of this instance's own tiers stands).
    @discardableResult
    public func publish(source: String) async -> Int? {
        try? await client.publish(source, to: channel)
    }

    /// Calls `handler` with each purged source, one at a time in the order published, until the
    /// returned task is cancelled (or the client shuts down). Reconnects on its own.
    public func listen(_ handler: @escaping @Sendable (String) async -> Void) -> Task<Void, Never> {
        let messages = client.subscribe(channel: channel)
        return Task {
            for await message in messages { await handler(message.string) }
        }
    }
}
