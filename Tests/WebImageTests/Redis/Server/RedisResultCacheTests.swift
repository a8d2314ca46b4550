import Foundation
import NIOCore
import Testing
import WebImageRedis
@testable import WebImageServer

@Suite("RedisResultCache and TieredResultCache: variants shared by a fleet", .redisInstalled)
struct RedisResultCacheTests {
    private func variant(_ tag: String, bytes: Int = 64) -> CachedResult {
        CachedResult(data: Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }) + Data(tag.utf8),
                     contentType: "image/webp", etag: "\"\(tag)\"", variesByAccept: tag.hasSuffix("v"))
    }

    @Test("store then result: bytes, type, ETag and Vary come back; the value is a binary header, not JSON")
    func roundTrip() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            let cache = RedisResultCache(client: client, timeToLive: .seconds(120))
            for tag in ["a", "bv"] {
                await cache.store(variant(tag), forKey: "300x200/\(tag)|webp", source: "https://o/1.jpg")
                #expect(await cache.result(forKey: "300x200/\(tag)|webp") == variant(tag))
            }
            #expect(await cache.result(forKey: "nothing") == nil)
            let raw = try #require(try await client.get("webimage:result:300x200/a|webp"))
            #expect(raw.getString(at: raw.readerIndex, length: 4) == "WIR1")
            let ttl = try await client.send(RedisCommand("PTTL", "webimage:result:300x200/a|webp")).integer ?? -1
            let setTTL = try await client.send(RedisCommand("PTTL", cache.setKey("https://o/1.jpg"))).integer ?? -1
            #expect(ttl > 0 && ttl <= 120_000 && setTTL > 0 && setTTL <= 120_000)
        }
    }

    @Test("removeResults(forSource:) deletes every variant of that source and its set, and none of another source's")
    func purgeBySource() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            let cache = RedisResultCache(client: client)
            for size in ["10x10", "20x20", "30x30"] {
                await cache.store(variant(size), forKey: "\(size)/a", source: "a.jpg")
            }
            await cache.store(variant("b"), forKey: "10x10/b", source: "b.jpg")
            #expect(await cache.removeResults(forSource: "a.jpg") == 3)
            for size in ["10x10", "20x20", "30x30"] { #expect(await cache.result(forKey: "\(size)/a") == nil) }
            #expect(try await !client.exists(cache.setKey("a.jpg")))
            #expect(await cache.result(forKey: "10x10/b") == variant("b"))
            #expect(await cache.removeResults(forSource: "a.jpg") == 0)
        }
    }

    @Test("a variant over the size cap is not stored; a foreign value under a key reads as a miss")
    func capAndForeignValues() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            let cache = RedisResultCache(client: client, maxValueBytes: 100)
            await cache.store(variant("big", bytes: 200), forKey: "big", source: "s")
            #expect(await cache.result(forKey: "big") == nil)
            try await client.set("webimage:result:foreign", to: ByteBuffer(string: "{\"json\":true}"))
            #expect(await cache.result(forKey: "foreign") == nil)
        }
    }

    @Test("TieredResultCache: a Redis hit made by another instance is copied into the local tier (and served from it with Redis gone); purge empties both")
    func tiered() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            let directories = (0..<2).map { _ in
                TemporaryFolder.url("redis-results")
            }
            defer { directories.forEach { try? FileManager.default.removeItem(at: $0) } }
            let shared = RedisResultCache(client: client)
            let instances = directories.map {
                TieredResultCache(local: LocalResultCache(directory: $0, maxDiskBytes: 1 << 20, memoryBytes: 1 << 20), shared: shared)
            }
            await instances[0].store(variant("x"), forKey: "k", source: "src.jpg")
            #expect(await instances[1].local.result(forKey: "k") == nil)
            #expect(await instances[1].result(forKey: "k") == variant("x"))  // from Redis
            #expect(await instances[1].local.result(forKey: "k") == variant("x"))  // copied, with its source

            #expect(await instances[1].removeResults(forSource: "src.jpg") == 1)
            #expect(await instances[1].result(forKey: "k") == nil)
            #expect(await instances[0].local.result(forKey: "k") == variant("x"))  // the other instance hears of it by pub/sub

            await instances[0].store(variant("y"), forKey: "k2", source: "src2.jpg")
            await server.stop()
            #expect(await instances[0].result(forKey: "k2") == variant("y"))
            #expect(await instances[1].result(forKey: "k2") == nil)  // Redis down: a miss, not an error
        }
    }
}
