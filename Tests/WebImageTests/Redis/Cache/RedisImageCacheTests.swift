import Foundation
import NIOCore
import Testing
@testable import WebImage
import WebImageRedis

@Suite("RedisImageCache: a shared ImageCaching tier for encoded images", .redisInstalled)
struct RedisImageCacheTests {
    private func withCache(
        timeToLive: Duration = .seconds(86_400), maxValueBytes: Int = 8 << 20,
        _ body: (RedisImageCache, RedisTestServer) async throws -> Void
    ) async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            try await body(RedisImageCache(client: client, timeToLive: timeToLive, maxValueBytes: maxValueBytes), server)
        }
    }

    @Test("store data, query decodes it (as a .disk hit, thumbnail options applied); avoidDecodeImage returns the bytes; .memory queries skip Redis")
    func storeAndQuery() async throws {
        try await withCache { cache, _ in
            let jpeg = try Fixtures.data("jpeg-baseline.jpg")
            let original = try ImageCodersManager.shared.decode(jpeg)
            try await cache.store(nil, data: jpeg, forKey: "https://x/a.jpg", cacheType: .all)

            let hit = try #require(await cache.queryImage(forKey: "https://x/a.jpg", options: [], decodeOptions: .default, cacheType: .all))
            #expect(hit.cacheType == .disk)
            #expect(hit.data == jpeg)
            #expect(hit.image?.pixelSize == original.pixelSize)

            var thumbnail = ImageDecodeOptions.default
            thumbnail.thumbnailPixelSize = PixelSize(width: 8, height: 8)
            let small = await cache.queryImage(forKey: "https://x/a.jpg", options: [], decodeOptions: thumbnail, cacheType: .disk)
            #expect((small?.image?.pixelSize.width ?? 99) <= 8)

            let raw = await cache.queryImage(forKey: "https://x/a.jpg", options: .avoidDecodeImage, decodeOptions: .default, cacheType: .all)
            #expect(raw?.image == nil && raw?.data == jpeg)

            #expect(await cache.queryImage(forKey: "https://x/a.jpg", options: [], decodeOptions: .default, cacheType: .memory) == nil)
            #expect(await cache.queryImage(forKey: "https://x/missing.jpg", options: [], decodeOptions: .default, cacheType: .all) == nil)
            #expect(await cache.containsImage(forKey: "https://x/a.jpg", cacheType: .all) == .disk)
        }
    }

    @Test("an image stored without data is encoded as the disk tier would (PNG for alpha) and decodes back the same size")
    func storeEncodesImage() async throws {
        try await withCache { cache, _ in
            let image = Image(bitmap: Fixtures.testCard(width: 20, height: 10, alpha: true))
            try await cache.store(image, data: nil, forKey: "card", cacheType: .disk)
            let stored = try #require(await cache.data(forKey: "card"))
            #expect(ImageFormat.detect(stored) == .png)
            let hit = await cache.queryImage(forKey: "card", options: [], decodeOptions: .default, cacheType: .all)
            #expect(hit?.image?.pixelSize == PixelSize(width: 20, height: 10))
        }
    }

    @Test("keys are namespaced and carry the TTL; remove deletes; a value over the size cap is not stored; a .memory store writes nothing")
    func keysTTLRemoveAndCap() async throws {
        try await withCache(timeToLive: .seconds(90), maxValueBytes: 1000) { cache, _ in
            let small = Data(try Fixtures.data("jpeg-baseline.jpg").prefix(900))
            try await cache.store(nil, data: small, forKey: "k", cacheType: .all)
            #expect(cache.redisKey(for: "k") == "webimage:image:default:k")
            let ttl = try await cache.client.send(RedisCommand("PTTL", "webimage:image:default:k")).integer ?? -1
            #expect(ttl > 0 && ttl <= 90_000)

            try await cache.store(nil, data: Data(repeating: 1, count: 1001), forKey: "big", cacheType: .all)
            #expect(await cache.containsImage(forKey: "big", cacheType: .all) == .none)
            try await cache.store(nil, data: small, forKey: "memory-only", cacheType: .memory)
            #expect(await cache.containsImage(forKey: "memory-only", cacheType: .all) == .none)

            await cache.removeImage(forKey: "k", cacheType: .all)
            #expect(await cache.data(forKey: "k") == nil)
        }
    }

    @Test("entries expire with their TTL")
    func expiry() async throws {
        // Long enough that a loaded machine still reads the entry before it goes (2 s was not, in CI once).
        try await withCache(timeToLive: .seconds(6) * TestTiming.scale) { cache, _ in
            try await cache.store(nil, data: Data("bytes".utf8), forKey: "short", cacheType: .all)
            #expect(await cache.data(forKey: "short") != nil)
            #expect(await eventuallyAsync { await cache.data(forKey: "short") == nil })
        }
    }

    @Test("clear removes this namespace's keys only")
    func clearKeepsOtherKeys() async throws {
        try await withCache { cache, _ in
            for index in 0..<1200 { await cache.storeData(Data("\(index)".utf8), forKey: "key\(index)") }
            try await cache.client.set("someone-else", to: ByteBuffer(string: "keep"))
            let other = RedisImageCache(client: cache.client, namespace: "other")
            await other.storeData(Data("x".utf8), forKey: "key1")
            await cache.clear(.all)
            #expect(await cache.data(forKey: "key1") == nil)
            #expect(await cache.data(forKey: "key1199") == nil)
            #expect(try await cache.client.get("someone-else") == ByteBuffer(string: "keep"))
            #expect(await other.data(forKey: "key1") != nil)
        }
    }

    @Test("Redis down: a query is a miss, a store neither throws nor waits past the timeout, and the client counts it")
    func redisDown() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            let cache = RedisImageCache(client: client)
            await server.stop()
            let jpeg = try Fixtures.data("jpeg-baseline.jpg")
            try await cache.store(nil, data: jpeg, forKey: "k", cacheType: .all)
            #expect(await cache.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all) == nil)
            #expect(await cache.containsImage(forKey: "k", cacheType: .all) == .none)
            await cache.removeImage(forKey: "k", cacheType: .all)
            let stats = client.stats
            #expect(stats.errors + stats.timeouts + stats.skipped == 4)
        }
    }

    @Test("two apps share it through ImageCachesManager (local ImageCache first, Redis behind): one stores, the other finds it in Redis")
    func throughCachesManager() async throws {
        try await withCache { shared, _ in
            let directories = (0..<2).map { _ in
                TemporaryFolder.url("redis-app")
            }
            defer { directories.forEach { try? FileManager.default.removeItem(at: $0) } }
            func app(_ directory: URL) -> (ImageCachesManager, ImageCache) {
                let local = ImageCache(directory: directory)
                var policies = ImageCachesManager.Policies()
                policies.store = .concurrent  // write through to every tier
                return (ImageCachesManager(caches: [shared, local], policies: policies), local)  // last = highest priority
            }
            let (first, firstLocal) = app(directories[0])
            let (second, secondLocal) = app(directories[1])

            let jpeg = try Fixtures.data("jpeg-baseline.jpg")
            let image = try ImageCodersManager.shared.decode(jpeg)
            try await first.store(image, data: jpeg, forKey: "https://origin/cat.jpg", cacheType: .all)
            #expect(await firstLocal.containsImage(forKey: "https://origin/cat.jpg", cacheType: .all) == .memory)

            let found = await second.queryImage(forKey: "https://origin/cat.jpg", options: [], decodeOptions: .default, cacheType: .all)
            #expect(found?.cacheType == .disk)
            #expect(found?.image?.pixelSize == image.pixelSize)
            #expect(await secondLocal.containsImage(forKey: "https://origin/cat.jpg", cacheType: .all) == .none)
            #expect(shared.client.stats.hits == 1)
        }
    }
}
