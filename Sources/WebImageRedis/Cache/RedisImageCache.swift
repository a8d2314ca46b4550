import Foundation
import NIOCore
import WebImage

/// A shared cache tier on Redis for encoded images, for several processes or machines that load
/// the same images (app servers, a `webimage serve` fleet). Compose it behind a local
/// `ImageCache` through `ImageCachesManager`.
///
/// Stores the bytes a disk tier would (the data given, else the image's original bytes, else the
/// image encoded) under `<prefix><key>` with a TTL; values over a size cap are not stored. A
/// query decodes with the given decode options, on `ImageWorkQueue/decoding`. Redis being
/// down, slow or refusing is a miss or a skipped write, never an error: the client's call
/// timeout and circuit breaker bound what it costs, and its ``RedisClient/stats`` count it.
public final class RedisImageCache: ImageCaching {
    public let client: RedisClient
    /// Prepended to every key, so several caches (or apps) share one Redis without meeting.
    public let keyPrefix: String
    /// How long an entry lives (Redis's own expiry; also bound memory with `maxmemory` + `allkeys-lru`).
    public let timeToLive: Duration
    /// Values larger than this are not stored (one huge image must not evict thousands of small ones).
    public let maxValueBytes: Int
    public let coders: ImageCodersManager
    /// For images stored without bytes.
    public let encodeOptions: ImageEncodeOptions

    public init(
        client: RedisClient, namespace: String = "default", timeToLive: Duration = .seconds(86_400),
        maxValueBytes: Int = 8 << 20, coders: ImageCodersManager = .shared, encodeOptions: ImageEncodeOptions = .default
    ) {
        self.client = client
        keyPrefix = "webimage:image:\(namespace):"
        self.timeToLive = timeToLive
        self.maxValueBytes = maxValueBytes
        self.coders = coders
        self.encodeOptions = encodeOptions
    }

    /// The Redis key holding `key`'s bytes.
    public func redisKey(for key: String) -> String { keyPrefix + key }

    // MARK: - ImageCaching

    // The tier answers as `.disk`: ImageCacheType has no remote case, and a Redis hit is encoded
    // bytes decoded like a disk hit — so `.disk`/`.all` queries include it and `.memory` ones skip the network.

    public func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType
    ) async -> ImageCacheResult? {
        guard cacheType.includesDisk, let data = await data(forKey: key) else { return nil }
        if options.contains(.avoidDecodeImage) { return ImageCacheResult(image: nil, data: data, cacheType: .disk) }
        var decodeOptions = decodeOptions
        if decodeOptions.scaleFactor == nil { decodeOptions.scaleFactor = ImageScale.scaleFactor(forKey: key) }
        let coders = self.coders
        let options = decodeOptions
        // Bytes that do not decode are a miss; the entry is left to its TTL (other decode options may read it).
        guard let image = await ImageWorkQueue.decoding.run({ try? coders.decode(data, options: options) }) else { return nil }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    /// Writes the bytes to Redis when `cacheType` includes the disk tier. A Redis failure is
    /// swallowed (counted in the client's stats); only an image that cannot be encoded throws,
    /// as it would for `ImageCache`.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        guard cacheType.includesDisk else { return }
        let bytes: Data
        if let data {
            bytes = data
        } else if let image {
            let (coders, options) = (self.coders, encodeOptions)
            bytes = try await ImageWorkQueue.processing.run {
                Result { try ImageDiskEncoding.data(for: image, coders: coders, options: options) }
            }.get()
        } else {
            return
        }
        await storeData(bytes, forKey: key)
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        guard cacheType.includesDisk else { return }
        _ = try? await client.del([redisKey(for: key)])
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        guard cacheType.includesDisk, (try? await client.exists(redisKey(for: key))) == true else { return .none }
        return .disk
    }

    /// Removes this cache's keys (those under ``keyPrefix``), never the rest of the database:
    /// `SCAN MATCH` in batches and `UNLINK`, so Redis is never blocked on one huge command.
    public func clear(_ cacheType: ImageCacheType) async {
        guard cacheType.includesDisk else { return }
        let pattern = Self.globEscaped(keyPrefix) + "*"
        var cursor = "0"
        repeat {
            guard let reply = try? await client.send(RedisCommand("SCAN", cursor, "MATCH", pattern, "COUNT", "500")),
                  let parts = reply.array, parts.count == 2, let next = parts[0].string, let keys = parts[1].array
            else { return }
            let names = keys.compactMap(\.string)
            if !names.isEmpty { _ = try? await client.send(RedisCommand("UNLINK", names)) }
            cursor = next
        } while cursor != "0"
    }

    // MARK: - Bytes

    /// The stored bytes for `key`, or nil (a miss, or Redis unavailable).
    public func data(forKey key: String) async -> Data? {
        guard let buffer = try? await client.get(redisKey(for: key)) else { return nil }
        return Data(buffer.readableBytesView)
    }

    /// Stores `data` for `key` with the TTL unless it is over the size cap; Redis failures are swallowed.
    public func storeData(_ data: Data, forKey key: String) async {
        guard !data.isEmpty, data.count <= maxValueBytes else { return }
        _ = try? await client.set(redisKey(for: key), to: ByteBuffer(bytes: data), expiresIn: timeToLive)
    }

    /// `text` with Redis glob's special characters escaped.
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
