import Foundation
import Testing
@testable import WebImage

@Suite("MemoryCache")
struct MemoryCacheTests {
    /// A 10×10 image: cost 400 bytes.
    private func image(_ shade: UInt8 = 0) -> Image {
        Image(bitmap: Fixtures.solid(RGBA(r: shade, g: 0, b: 0), width: 10, height: 10))
    }

    @Test func countLimitEvictsTheLeastRecentlyUsed() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 0, countLimit: 3, usesWeakCache: false))
        for key in ["a", "b", "c"] { cache.setImage(image(), forKey: key) }
        _ = cache.image(forKey: "a")  // "b" is now the oldest
        cache.setImage(image(), forKey: "d")
        #expect(cache.totalCount == 3)
        #expect(cache.image(forKey: "b") == nil)
        #expect(cache.image(forKey: "a") != nil && cache.image(forKey: "c") != nil && cache.image(forKey: "d") != nil)
    }

    @Test func costLimitHoldsAfterEveryInsert() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 1000, usesWeakCache: false))
        for i in 0..<50 {
            cache.setImage(image(), forKey: "k\(i)")
            #expect(cache.totalCost <= 1000)
        }
        #expect(cache.totalCount == 2)  // 2 × 400 ≤ 1000 < 3 × 400
        #expect(cache.image(forKey: "k49") != nil && cache.image(forKey: "k48") != nil)
    }

    @Test func anImageLargerThanTheLimitIsNotHeldStrongly() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 300, usesWeakCache: false))
        cache.setImage(image(), forKey: "big")
        #expect(cache.totalCost == 0)
        #expect(cache.image(forKey: "big") == nil)
    }

    @Test func replacingAKeyUpdatesItsCost() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 0))
        cache.setImage(image(), forKey: "k")
        cache.setImage(Image(bitmap: Fixtures.solid(RGBA(r: 0, g: 0, b: 0), width: 20, height: 10)), forKey: "k")
        #expect(cache.totalCost == 800)
        #expect(cache.totalCount == 1)
        #expect(cache.image(forKey: "k")?.width == 20)
    }

    @Test func weakCacheFindsAnEvictedImageThatIsStillInUse() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 0, countLimit: 1, usesWeakCache: true))
        let held = image(1)
        cache.setImage(held, forKey: "held")
        cache.setImage(image(2), forKey: "other")  // evicts "held" from the strong store
        #expect(cache.totalCount == 1)
        #expect(cache.image(forKey: "held") === held, "still referenced here, so found again")
        // Once nobody holds an evicted image, it is gone.
        do {
            cache.setImage(image(3), forKey: "transient")
            cache.setImage(image(4), forKey: "evictor")
        }
        #expect(cache.image(forKey: "transient") == nil)
    }

    @Test func trimKeepsWeakReferencesButRemoveAllDoesNot() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 0, usesWeakCache: true))
        let held = image()
        cache.setImage(held, forKey: "k")
        cache.trim(toCost: 0)
        #expect(cache.totalCost == 0)
        #expect(cache.image(forKey: "k") === held)
        cache.removeAll()
        #expect(cache.image(forKey: "k") == nil)
    }

    @Test func removeForgetsBothTables() {
        let cache = MemoryCache()
        let held = image()
        cache.setImage(held, forKey: "k")
        cache.removeImage(forKey: "k")
        #expect(cache.image(forKey: "k") == nil)
    }

    @Test func loweringTheLimitsTrimsAtOnce() {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 0, usesWeakCache: false))
        for i in 0..<10 { cache.setImage(image(), forKey: "\(i)") }
        cache.config.countLimit = 4
        #expect(cache.totalCount == 4)
        cache.trim(toCount: 1)
        #expect(cache.totalCount == 1)
        #expect(cache.image(forKey: "9") != nil)
    }

    @Test func defaultCostLimitIsAQuarterOfUsableMemory() {
        #expect(MemoryCacheConfig.defaultCostLimit > 0)
        #expect(UInt64(MemoryCacheConfig.defaultCostLimit) <= ProcessInfo.processInfo.physicalMemory / 4)
    }

    @Test func manyTasksKeepTheLimits() async {
        let cache = MemoryCache(config: MemoryCacheConfig(costLimit: 4000, countLimit: 8, usesWeakCache: true))
        let images = (0..<32).map { image(UInt8($0)) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<64 {
                group.addTask {
                    for i in 0..<500 {
                        let key = "k\((task * 7 + i) % 32)"
                        if i % 3 == 0 { cache.setImage(images[(task + i) % 32], forKey: key) }
                        else if i % 17 == 0 { cache.removeImage(forKey: key) }
                        else { _ = cache.image(forKey: key) }
                        if i % 97 == 0 { cache.trim(toCost: 2000) }
                    }
                }
            }
        }
        #expect(cache.totalCost <= 4000)
        #expect(cache.totalCount <= 8)
    }
}
