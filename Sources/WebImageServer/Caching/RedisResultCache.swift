import Foundation
import NIOCore
import WebImage
import WebImageRedis

/// Variants in a Redis shared by a fleet (``ResultCaching``). Each value is a small binary header
/// (type, ETag, `Vary`, source) before the bytes — no JSON, no base64 — under `<prefix><key>` with
/// a TTL; each source has a Redis set of its variants' keys, so a purge finds them all. Redis
/// being down or slow is a miss or a skipped write, never an error (the client's timeout and
/// circuit breaker bound it).
public final class RedisResultCache: ResultCaching {
    public let client: RedisClient
    public let keyPrefix: String
    public let timeToLive: Duration
    /// Variants larger than this are not stored.
    public let maxValueBytes: Int

    public init(client: RedisClient, keyPrefix: String = "webimage:result:", timeToLive: Duration = .seconds(86_400),
                maxValueBytes: Int = 8 << 20) {
        self.client = client
        self.keyPrefix = keyPrefix
        self.timeToLive = timeToLive
        self.maxValueBytes = maxValueBytes
    }

    public func result(forKey key: String) async -> CachedResult? {
        await entry(forKey: key)?.result
    }

    /// The variant and the source it was made from (a tier in front copies both).
    public func entry(forKey key: String) async -> (result: CachedResult, source: String)? {
        guard let buffer = try? await client.get(keyPrefix + key) else { return nil }
        return RedisResultEncoding.decode(buffer)
    }

    public func store(_ result: CachedResult, forKey key: String, source: String) async {
        await store(result, forKey: key, sources: [source])
    }

    /// Writes the variant once and adds its key to each source's set, in one script (a purge
    /// running at the same time sees both or neither); a set lives as long as its newest variant.
    /// The value names the first source.
    public func store(_ result: CachedResult, forKey key: String, sources: [String]) async {
        guard let source = sources.first, result.data.count <= maxValueBytes else { return }
        let value = RedisResultEncoding.encode(result, source: source)
        let ttl = ByteBuffer(string: String(RedisClient.milliseconds(timeToLive)))
        var unique: [String] = []
        for source in sources where !unique.contains(source) { unique.append(source) }
        _ = try? await client.send(RedisCommand(arguments: [
            ByteBuffer(string: "EVAL"), ByteBuffer(string: Self.storeScript), ByteBuffer(string: String(1 + unique.count)),
            ByteBuffer(string: keyPrefix + key),
        ] + unique.map { ByteBuffer(string: setKey($0)) } + [value, ttl]))
    }

    /// Deletes every variant of `source` and its set, in one script; returns how many variants
    /// were still there (0 when Redis is unavailable).
    public func removeResults(forSource source: String) async -> Int {
        let reply = try? await client.send(RedisCommand("EVAL", Self.purgeScript, "1", setKey(source)))
        return reply?.integer ?? 0
    }

    /// The Redis set listing `source`'s variant keys.
    public func setKey(_ source: String) -> String { keyPrefix + "variants-of:" + source }

    private static let storeScript = """
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        for i = 2, #KEYS do
          redis.call('SADD', KEYS[i], KEYS[1])
          redis.call('PEXPIRE', KEYS[i], ARGV[2])
        end
        return 1
        """

    // DEL in slices: Lua's unpack has a limit on how many values it spreads.
    private static let purgeScript = """
        local keys = redis.call('SMEMBERS', KEYS[1])
        local removed = 0
        for i = 1, #keys, 500 do
          removed = removed + redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
        end
        redis.call('DEL', KEYS[1])
        return removed
        """
}

/// The value format: `WIR1`, a flags byte (bit 0: varies by Accept), then the content type and
/// ETag (each a 16-bit length and UTF-8) and the source (a 32-bit length and UTF-8), then — with
/// flag bit 1 — the source's Last-Modified (a 16-bit length and UTF-8), then the bytes.
enum RedisResultEncoding {
    private static let magic: [UInt8] = Array("WIR1".utf8)

    static func encode(_ result: CachedResult, source: String) -> ByteBuffer {
        let type = Array(result.contentType.utf8.prefix(Int(UInt16.max)))
        let etag = Array(result.etag.utf8.prefix(Int(UInt16.max)))
        let sourceBytes = Array(source.utf8)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(16 + type.count + etag.count + sourceBytes.count + result.data.count)
        buffer.writeBytes(magic)
        let lastModified = result.lastModified.map { Array($0.utf8.prefix(Int(UInt16.max))) }
        buffer.writeInteger(UInt8(result.variesByAccept ? 1 : 0) | (lastModified == nil ? 0 : 2))
        buffer.writeInteger(UInt16(type.count))
        buffer.writeBytes(type)
        buffer.writeInteger(UInt16(etag.count))
        buffer.writeBytes(etag)
        buffer.writeInteger(UInt32(sourceBytes.count))
        buffer.writeBytes(sourceBytes)
        if let lastModified {
            buffer.writeInteger(UInt16(lastModified.count))
            buffer.writeBytes(lastModified)
        }
        buffer.writeBytes(result.data)
        return buffer
    }

    /// Nil for anything that is not a whole value of this format (a foreign key, a cut value).
    static func decode(_ value: ByteBuffer) -> (result: CachedResult, source: String)? {
        var buffer = value
        guard buffer.readBytes(length: 4) == magic, let flags = buffer.readInteger(as: UInt8.self),
              let typeLength = buffer.readInteger(as: UInt16.self), let type = buffer.readString(length: Int(typeLength)),
              let etagLength = buffer.readInteger(as: UInt16.self), let etag = buffer.readString(length: Int(etagLength)),
              let sourceLength = buffer.readInteger(as: UInt32.self), let source = buffer.readString(length: Int(sourceLength))
        else { return nil }
        var lastModified: String?
        if flags & 2 == 2 {
            guard let length = buffer.readInteger(as: UInt16.self), let text = buffer.readString(length: Int(length)) else { return nil }
            lastModified = text
        }
        let result = CachedResult(data: Data(buffer.readableBytesView), contentType: type, etag: etag,
                                  variesByAccept: flags & 1 == 1, lastModified: lastModified)
        return (result, source)
    }
}
