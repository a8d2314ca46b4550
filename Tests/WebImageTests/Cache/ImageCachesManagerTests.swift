import Foundation
import Testing
@testable import WebImage

/// Two real caches over temporary directories: `low` added first, `high` last (highest priority).
private final class TwoCaches {
    let lowDirectory: TemporaryCacheDirectory
    let highDirectory: TemporaryCacheDirectory
    let low: ImageCache
    let high: ImageCache
    let manager: ImageCachesManager

    init(policies: ImageCachesManager.Policies = .init()) throws {
        lowDirectory = try TemporaryCacheDirectory()
        highDirectory = try TemporaryCacheDirectory()
        let config = ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 16 << 20))
        low = ImageCache(directory: lowDirectory.url, config: config)
        high = ImageCache(directory: highDirectory.url, config: config)
        manager = ImageCachesManager(policies: policies)
        manager.addCache(low)
        manager.addCache(high)
    }
}

private let image = Image(bitmap: Fixtures.testCard(width: 8, height: 8))

/// A memory front over a tier that answers only once `gate` opens (a remote tier's round trip):
/// its memory hits answer on the caller's thread, every other lookup waits.
private final class GatedTierCache: ImageCaching {
    let front: ImageCache
    let gate = OriginGate()

    init(_ front: ImageCache) { self.front = front }

    func queryImage(forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType) async -> ImageCacheResult? {
        await gate.wait()
        return await front.queryImage(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
    }
    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        try await front.store(image, data: data, forKey: key, cacheType: cacheType)
    }
    func removeImage(forKey key: String, cacheType: ImageCacheType) async { await front.removeImage(forKey: key, cacheType: cacheType) }
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await gate.wait()
        return await front.containsImage(forKey: key, cacheType: cacheType)
    }
    func clear(_ cacheType: ImageCacheType) async { await front.clear(cacheType) }
    func imageFromMemoryCache(forKey key: String) -> Image? { front.imageFromMemoryCache(forKey: key) }
}

private func policies(_ change: (inout ImageCachesManager.Policies) -> Void) -> ImageCachesManager.Policies {
    var policies = ImageCachesManager.Policies()
    change(&policies)
    return policies
}

@Suite("ImageCachesManager")
struct ImageCachesManagerTests {
    @Test("SD's default policies: query serial, store highest only, remove concurrent, contains serial, clear concurrent")
    func defaults() {
        let policies = ImageCachesManager.Policies()
        #expect(policies.query == .serial)
        #expect(policies.store == .highestOnly)
        #expect(policies.remove == .concurrent)
        #expect(policies.contains == .serial)
        #expect(policies.clear == .concurrent)
    }

    @Test("store, highest only (default): only the cache added last gets it")
    func storeHighestOnly() async throws {
        let caches = try TwoCaches()
        try await caches.manager.store(image, data: nil, forKey: "k", cacheType: .memory)
        #expect(caches.high.imageFromMemoryCache(forKey: "k") === image)
        #expect(caches.low.imageFromMemoryCache(forKey: "k") == nil)
    }

    @Test("store, lowest only: only the cache added first gets it")
    func storeLowestOnly() async throws {
        let caches = try TwoCaches(policies: policies { $0.store = .lowestOnly })
        try await caches.manager.store(image, data: nil, forKey: "k", cacheType: .memory)
        #expect(caches.low.imageFromMemoryCache(forKey: "k") === image)
        #expect(caches.high.imageFromMemoryCache(forKey: "k") == nil)
    }

    @Test("store, concurrent and serial: every cache gets it", arguments: [ImageCachesManagerPolicy.concurrent, .serial])
    func storeEverywhere(_ policy: ImageCachesManagerPolicy) async throws {
        let caches = try TwoCaches(policies: policies { $0.store = policy })
        try await caches.manager.store(image, data: nil, forKey: "k", cacheType: .all)
        #expect(await caches.low.containsImage(forKey: "k", cacheType: .disk) == .disk)
        #expect(await caches.high.containsImage(forKey: "k", cacheType: .disk) == .disk)
    }

    @Test("query, serial: the highest cache that has it answers")
    func querySerial() async throws {
        let caches = try TwoCaches()
        let lowImage = Image(bitmap: Fixtures.testCard(width: 4, height: 4))
        caches.low.storeImageToMemory(lowImage, forKey: "both")
        caches.high.storeImageToMemory(image, forKey: "both")
        caches.low.storeImageToMemory(lowImage, forKey: "lowOnly")
        #expect(await caches.manager.queryImage(forKey: "both", options: [], decodeOptions: .default, cacheType: .all)?.image === image)
        #expect(await caches.manager.queryImage(forKey: "lowOnly", options: [], decodeOptions: .default, cacheType: .all)?.image === lowImage)
        #expect(await caches.manager.queryImage(forKey: "none", options: [], decodeOptions: .default, cacheType: .all) == nil)
    }

    @Test("query, highest only and lowest only: the other cache is never asked")
    func querySingle() async throws {
        let highOnly = try TwoCaches(policies: policies { $0.query = .highestOnly })
        highOnly.low.storeImageToMemory(image, forKey: "k")
        #expect(await highOnly.manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all) == nil)

        let lowOnly = try TwoCaches(policies: policies { $0.query = .lowestOnly })
        lowOnly.high.storeImageToMemory(image, forKey: "k")
        #expect(await lowOnly.manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all) == nil)
        lowOnly.low.storeImageToMemory(image, forKey: "k")
        #expect(await lowOnly.manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all)?.image === image)
    }

    @Test("query, concurrent: a hit in any cache answers")
    func queryConcurrent() async throws {
        let caches = try TwoCaches(policies: policies { $0.query = .concurrent })
        try await caches.low.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: "k", cacheType: .disk)
        let result = await caches.manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all)
        #expect(result?.cacheType == .disk && result?.image != nil)
    }

    @Test("concurrent contains and query: a memory hit in the first cache answers, however fast another cache's disk is (SD answers memory hits on the caller's thread)")
    func concurrentMemoryHitWins() async throws {
        let caches = try TwoCaches(policies: policies { $0.contains = .concurrent; $0.query = .concurrent })
        let gated = GatedTierCache(caches.high)
        defer { gated.gate.open() }
        let manager = ImageCachesManager(caches: [caches.low, gated], policies: caches.manager.policies)
        try await caches.low.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: "k", cacheType: .disk)
        caches.high.storeImageToMemory(image, forKey: "k")
        // The gated cache's own lookups never answer while the gate is shut: its memory hit must.
        #expect(await manager.containsImage(forKey: "k", cacheType: .all) == .memory)
        let found = await manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all)
        #expect(found?.cacheType == .memory && found?.image === image)
        // Two real caches, many times: the memory hit never loses the race to the other's disk.
        for _ in 0..<50 {
            #expect(await caches.manager.containsImage(forKey: "k", cacheType: .all) == .memory)
        }
        // Without a memory hit the disk answers, from whichever cache has it.
        #expect(await caches.manager.containsImage(forKey: "k", cacheType: .disk) == .disk)
    }

    @Test("contains, serial: the highest cache's answer; none when no cache has it")
    func containsSerial() async throws {
        let caches = try TwoCaches()
        try await caches.low.store(image, data: nil, forKey: "k", cacheType: .disk)
        #expect(await caches.manager.containsImage(forKey: "k", cacheType: .all) == .disk)
        caches.high.storeImageToMemory(image, forKey: "k")
        #expect(await caches.manager.containsImage(forKey: "k", cacheType: .all) == .memory)
        #expect(await caches.manager.containsImage(forKey: "x", cacheType: .all) == .none)
    }

    @Test("remove and clear, concurrent (default): every cache")
    func removeAndClearEverywhere() async throws {
        let caches = try TwoCaches()
        for cache in [caches.low, caches.high] {
            try await cache.store(image, data: nil, forKey: "a", cacheType: .all)
            try await cache.store(image, data: nil, forKey: "b", cacheType: .all)
        }
        await caches.manager.removeImage(forKey: "a", cacheType: .all)
        #expect(await caches.low.containsImage(forKey: "a", cacheType: .all) == .none)
        #expect(await caches.high.containsImage(forKey: "a", cacheType: .all) == .none)
        await caches.manager.clear(.all)
        #expect(await caches.low.containsImage(forKey: "b", cacheType: .all) == .none)
        #expect(await caches.high.containsImage(forKey: "b", cacheType: .all) == .none)
    }

    @Test("remove, highest only: the lower cache keeps its entry")
    func removeHighestOnly() async throws {
        let caches = try TwoCaches(policies: policies { $0.remove = .highestOnly })
        caches.low.storeImageToMemory(image, forKey: "k")
        caches.high.storeImageToMemory(image, forKey: "k")
        await caches.manager.removeImage(forKey: "k", cacheType: .all)
        #expect(caches.high.imageFromMemoryCache(forKey: "k") == nil)
        #expect(caches.low.imageFromMemoryCache(forKey: "k") === image)
    }

    @Test("a store error from any addressed cache is thrown after all were tried")
    func storeErrors() async throws {
        let caches = try TwoCaches(policies: policies { $0.store = .serial })
        caches.high.diskCache.config.maxDiskSize = 10
        await #expect(throws: DiskCacheError.self) {
            try await caches.manager.store(image, data: nil, forKey: "k", cacheType: .disk)
        }
        #expect(await caches.low.containsImage(forKey: "k", cacheType: .disk) == .disk)
    }

    @Test("removeCache takes a cache out; an empty manager misses and stores nowhere")
    func removeCache() async throws {
        let caches = try TwoCaches()
        caches.manager.removeCache(caches.high)
        caches.manager.removeCache(caches.low)
        #expect(caches.manager.caches.isEmpty)
        try await caches.manager.store(image, data: nil, forKey: "k", cacheType: .all)
        #expect(await caches.manager.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all) == nil)
    }
}
