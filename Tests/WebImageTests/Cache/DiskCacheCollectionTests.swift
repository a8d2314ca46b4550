import Foundation
import Testing
@testable import WebImage

private func page(_ index: Int, size: Int = 1000) -> Data {
    Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) })
}

/// Collections on the disk cache: a comic reader's chapter kept whole for offline reading.
@Suite("DiskCache collections")
struct DiskCacheCollectionTests {
    @Test("a collection larger than half the quota keeps every page: trims evict only unpinned entries, oldest first")
    func pinnedSurviveTrims() throws {
        let dir = try TemporaryCacheDirectory()
        let cache = DiskCache(directory: dir.url, config: DiskCacheConfig(maxDiskSize: 10_000))
        _ = cache.totalSize  // the index is built: every store keeps the limit at once
        let chapter = (0..<7).map { "https://comics.example/ch1/\($0).jpg" }
        try cache.pin(chapter, in: "chapter-1")
        for (index, key) in chapter.enumerated() { try cache.store(page(index), forKey: key) }
        for index in 0..<5 { try cache.store(page(100 + index), forKey: "https://other.example/\(index).jpg") }
        #expect(chapter.allSatisfy { cache.data(forKey: $0) != nil }, "every page of the chapter is still there")
        #expect(cache.totalSize <= 10_000)
        let entries = try cache.entries(in: "chapter-1")
        #expect(entries.map(\.key) == chapter && entries.allSatisfy { $0.isCached && $0.bytes == 1000 })
        var expiring = cache.config
        expiring.maxDiskAge = 0
        cache.config = expiring
        cache.removeExpiredData()
        #expect(chapter.allSatisfy { cache.data(forKey: $0) != nil }, "age expiry keeps pinned entries too")
        #expect(cache.totalCount == chapter.count)
    }

    @Test("a store that cannot fit beside the pinned entries fails with a typed error and evicts nothing")
    func noRoomBesidePinned() throws {
        let dir = try TemporaryCacheDirectory()
        let cache = DiskCache(directory: dir.url, config: DiskCacheConfig(maxDiskSize: 5_000))
        _ = cache.totalSize
        let chapter = (0..<4).map { "k\($0)" }
        try cache.pin(chapter, in: "c")
        for (index, key) in chapter.enumerated() { try cache.store(page(index), forKey: key) }
        #expect(throws: DiskCacheError.noRoomBesidePinned(size: 2000, pinnedSize: 4000, limit: 5000)) {
            try cache.store(page(9, size: 2000), forKey: "extra")
        }
        #expect(cache.data(forKey: "extra") == nil)
        #expect(chapter.allSatisfy { cache.data(forKey: $0) != nil })
        try cache.store(page(8, size: 900), forKey: "small")
        #expect(cache.data(forKey: "small") != nil, "what fits beside them is stored")
    }

    @Test("collections survive a new instance (a restart); list order, missing keys and bytes are reported; pin appends each key once")
    func listing() throws {
        let dir = try TemporaryCacheDirectory()
        do {
            let cache = DiskCache(directory: dir.url)
            try cache.pin(["a", "b", "c"], in: "one")
            try cache.pin(["c", "d"], in: "one")
            try cache.pin(["x"], in: "two")
            try cache.store(page(1), forKey: "b")
            try cache.store(page(2, size: 500), forKey: "x")
        }
        let reopened = DiskCache(directory: dir.url)
        #expect(reopened.collections() == [
            ImageCollection(name: "one", count: 4, cachedCount: 1, bytes: 1000),
            ImageCollection(name: "two", count: 1, cachedCount: 1, bytes: 500),
        ])
        #expect(try reopened.entries(in: "one").map(\.isCached) == [false, true, false, false])
        #expect(try reopened.entries(in: "one").map(\.key) == ["a", "b", "c", "d"])
        #expect(reopened.isPinned("b") && !reopened.isPinned("zzz"))
    }

    @Test("unpinning lets entries age and trim again; with deletingEntries they go at once, except those another collection pins")
    func unpin() throws {
        let dir = try TemporaryCacheDirectory()
        let cache = DiskCache(directory: dir.url)
        try cache.pin(["a", "b"], in: "one")
        try cache.pin(["b"], in: "two")
        for key in ["a", "b"] { try cache.store(page(1), forKey: key) }
        #expect(try cache.unpin(collection: "one", deletingEntries: true) == 1)
        #expect(cache.data(forKey: "a") == nil && cache.data(forKey: "b") != nil)
        #expect(try cache.unpin(collection: "two") == 0)
        #expect(cache.data(forKey: "b") != nil && !cache.isPinned("b"))
        #expect(cache.collections().isEmpty)
        #expect(throws: ImageCollectionError.notFound("two")) { try cache.unpin(collection: "two") }
    }

    @Test("names are one safe file name each; keys one line each", arguments: ["", ".hidden", "a/b", "../x", "a b", String(repeating: "n", count: 129)])
    func badNames(_ name: String) throws {
        let dir = try TemporaryCacheDirectory()
        let cache = DiskCache(directory: dir.url)
        #expect(throws: ImageCollectionError.invalidName(name)) { try cache.pin(["a"], in: name) }
        #expect(throws: ImageCollectionError.self) { try cache.pin(["a\nb"], in: "ok") }
    }

    @Test("another instance's pins are seen by this one's next trim (the folder is read again when it changed)")
    func pinsFromAnotherInstance() throws {
        let dir = try TemporaryCacheDirectory()
        let first = DiskCache(directory: dir.url, config: DiskCacheConfig(maxDiskSize: 4_000))
        _ = first.totalSize
        try first.store(page(1), forKey: "kept")
        #expect(first.collections().isEmpty)
        try DiskCache(directory: dir.url).pin(["kept"], in: "c")
        for index in 0..<4 { try first.store(page(10 + index), forKey: "new-\(index)") }
        #expect(first.data(forKey: "kept") != nil)
    }
}
