import Foundation
import Synchronization
import Testing
@testable import WebImage

/// An ``ImageCache`` over a fresh temporary directory, with a memory tier big enough for tests.
private func makeCache(_ directory: borrowing TemporaryCacheDirectory, config: ImageCacheConfig = ImageCacheConfig(
    memory: MemoryCacheConfig(costLimit: 64 << 20))) -> ImageCache {
    ImageCache(directory: directory.url, config: config)
}

private func photo(alpha: Bool = false) -> Image {
    Image(bitmap: Fixtures.testCard(width: 32, height: 24, alpha: alpha))
}

@Suite("ImageCache")
struct ImageCacheTests {
    @Test("store puts the image in memory at once and its bytes on disk when the call returns")
    func storeBothTiers() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("jpeg-baseline.jpg")
        let image = try ImageCodersManager.shared.decode(data)
        try await cache.store(image, data: data, forKey: "https://example.com/a.jpg", cacheType: .all)

        #expect(cache.imageFromMemoryCache(forKey: "https://example.com/a.jpg") === image)
        #expect(await cache.diskImageData(forKey: "https://example.com/a.jpg") == data)
        #expect(cache.cachePath(forKey: "https://example.com/a.jpg").hasSuffix(".jpg"))
        #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: "https://example.com/a.jpg")))
    }

    @Test("the cache type of a store picks the tiers", arguments: [ImageCacheType.none, .memory, .disk, .all])
    func storeTiers(_ type: ImageCacheType) async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        try await cache.store(photo(), data: nil, forKey: "k", cacheType: type)
        #expect((cache.imageFromMemoryCache(forKey: "k") != nil) == type.includesMemory)
        #expect(await cache.diskImageDataExists(forKey: "k") == type.includesDisk)
    }

    @Test("an image stored without bytes is encoded: PNG with alpha, JPEG without, GIF when animated")
    func encodingRule() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let animated = Image(frames: [
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: 255, g: 0, b: 0, a: 255), width: 8, height: 8), duration: 0.1),
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: 0, g: 0, b: 255, a: 255), width: 8, height: 8), duration: 0.1),
        ])
        let cases: [(Image, ImageFormat)] = [(photo(alpha: true), .png), (photo(), .jpeg), (animated, .gif)]
        for (index, (image, format)) in cases.enumerated() {
            try await cache.store(image, data: nil, forKey: "k\(index)", cacheType: .disk)
            let stored = try #require(await cache.diskImageData(forKey: "k\(index)"))
            #expect(ImageFormat.detect(stored) == format)
        }
        let gif = try #require(await cache.imageFromDiskCache(forKey: "k2"))
        #expect(gif.frames.count == 2)
    }

    @Test("an image encoded for disk has its orientation applied: it comes back upright, not sideways")
    func encodingAppliesOrientation() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let sideways = Image(bitmap: Fixtures.testCard(width: 32, height: 24, alpha: true), orientation: .right)
        try await cache.store(sideways, data: nil, forKey: "thumb", cacheType: .disk)
        let back = try #require(await cache.imageFromDiskCache(forKey: "thumb"))
        #expect(back.orientation == .up)
        #expect(back.bitmap == sideways.bitmap.oriented(.right))
    }

    @Test("a JPEG that gained transparency (round corners) is stored as PNG, so the alpha survives a restart")
    func jpegWithAlpha() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let jpeg = try ImageCodersManager.shared.decode(try Fixtures.data("jpeg-baseline.jpg"))
        let rounded = try #require(RoundCornerTransformer(cornerRadius: 8)
            .transform(jpeg, forKey: "k"))
        #expect(rounded.format == .jpeg && rounded.hasAlpha)
        try await cache.store(rounded, data: nil, forKey: "rounded.jpg", cacheType: .disk)
        let stored = try #require(await cache.diskImageData(forKey: "rounded.jpg"))
        #expect(ImageFormat.detect(stored) == .png)
        let back = try #require(await cache.imageFromDiskCache(forKey: "rounded.jpg"))
        #expect(back.hasAlpha)
        #expect(back.bitmap == rounded.bitmap)
    }

    @Test("an image's original bytes are stored as they are, and its own format is kept")
    func originalBytesKept() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let webp = try Fixtures.data("webp-lossy.webp")
        let decoded = try ImageCodersManager.shared.decode(webp)
        try await cache.store(decoded.with(originalData: .some(webp)), data: nil, forKey: "orig", cacheType: .disk)
        #expect(await cache.diskImageData(forKey: "orig") == webp)

        try await cache.store(decoded.with(originalData: .some(nil)), data: nil, forKey: "own", cacheType: .disk)
        let reencoded = try #require(await cache.diskImageData(forKey: "own"))
        #expect(ImageFormat.detect(reencoded) == .webp)
    }

    @Test("query looks in memory first, then decodes the disk bytes and copies the image into memory")
    func queryOrder() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("png-rgba.png")
        try await cache.store(nil, data: data, forKey: "p.png", cacheType: .disk)
        #expect(cache.imageFromMemoryCache(forKey: "p.png") == nil)

        let first = try #require(await cache.queryImage(forKey: "p.png", options: [], decodeOptions: .default, cacheType: .all))
        #expect(first.cacheType == .disk)
        #expect(first.data == data)
        let image = try #require(first.image)
        #expect(cache.imageFromMemoryCache(forKey: "p.png") === image)

        let second = try #require(await cache.queryImage(forKey: "p.png", options: [], decodeOptions: .default, cacheType: .all))
        #expect(second.cacheType == .memory)
        #expect(second.image === image)
        #expect(second.data == nil)
    }

    @Test("queryMemoryData also returns the disk bytes on a memory hit")
    func queryMemoryData() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("jpeg-gray.jpg")
        try await cache.store(try ImageCodersManager.shared.decode(data), data: data, forKey: "g", cacheType: .all)
        let result = try #require(await cache.queryImage(forKey: "g", options: .queryMemoryData, decodeOptions: .default, cacheType: .all))
        #expect(result.cacheType == .memory)
        #expect(result.data == data)
    }

    @Test("avoidDecodeImage returns the bytes only; skipMemorySync leaves memory alone; a memory-only query misses disk")
    func queryOptions() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("png-gray.png")
        try await cache.store(nil, data: data, forKey: "d", cacheType: .disk)

        let raw = try #require(await cache.queryImage(forKey: "d", options: .avoidDecodeImage, decodeOptions: .default, cacheType: .all))
        #expect(raw.image == nil && raw.data == data && raw.cacheType == .disk)
        #expect(await cache.queryImage(forKey: "d", options: [], decodeOptions: .default, cacheType: .memory) == nil)
        _ = await cache.queryImage(forKey: "d", options: .skipMemorySync, decodeOptions: .default, cacheType: .all)
        #expect(cache.imageFromMemoryCache(forKey: "d") == nil)
    }

    @Test("a disk hit decodes with the query's options and the key's @2x scale")
    func diskDecodeOptions() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("jpeg-baseline.jpg")
        let full = try ImageCodersManager.shared.decode(data)
        try await cache.store(nil, data: data, forKey: "icon@2x.jpg", cacheType: .disk)
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let thumb = try #require(await cache.queryImage(forKey: "icon@2x.jpg", options: [], decodeOptions: options, cacheType: .all)?.image)
        #expect(max(thumb.width, thumb.height) == 16)
        #expect(max(full.width, full.height) > 16)
        #expect(thumb.scale == 2)
        // A thumbnail decoded from the full bytes must not answer later full-size queries.
        #expect(cache.imageFromMemoryCache(forKey: "icon@2x.jpg") == nil)
    }

    @Test("decodeFirstFrameOnly gives a still, from disk and from memory, and does not replace the animation in memory")
    func firstFrameOnly() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        let data = try Fixtures.data("gif-pillow-animated.gif")
        try await cache.store(nil, data: data, forKey: "anim.gif", cacheType: .disk)
        let still = ImageDecodeOptions(decodeFirstFrameOnly: true)
        let fromDisk = try #require(await cache.queryImage(forKey: "anim.gif", options: [], decodeOptions: still, cacheType: .all)?.image)
        #expect(fromDisk.frames.count == 1)
        #expect(cache.imageFromMemoryCache(forKey: "anim.gif") == nil)

        let animation = try #require(await cache.queryImage(forKey: "anim.gif", options: [], decodeOptions: .default, cacheType: .all)?.image)
        #expect(animation.isAnimated)
        let fromMemory = try #require(await cache.queryImage(forKey: "anim.gif", options: [], decodeOptions: still, cacheType: .all))
        #expect(fromMemory.cacheType == .memory && fromMemory.image?.frames.count == 1)
    }

    @Test("a corrupt disk entry is a miss and is removed; an over-limit one is a miss and is kept")
    func corruptEntry() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        var truncated = try Fixtures.data("png-rgb.png")
        truncated.removeLast(truncated.count / 2)
        try await cache.store(nil, data: truncated, forKey: "bad", cacheType: .disk)
        #expect(await cache.queryImage(forKey: "bad", options: [], decodeOptions: .default, cacheType: .all) == nil)
        #expect(await cache.diskImageDataExists(forKey: "bad") == false)

        try await cache.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: "big", cacheType: .disk)
        let tiny = ImageDecodeOptions(maxPixelCount: 10)
        #expect(await cache.queryImage(forKey: "big", options: [], decodeOptions: tiny, cacheType: .all) == nil)
        #expect(await cache.diskImageDataExists(forKey: "big"))
    }

    @Test("contains reports memory before disk, and none for a miss")
    func contains() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        try await cache.store(photo(), data: nil, forKey: "both", cacheType: .all)
        try await cache.store(photo(), data: nil, forKey: "disk", cacheType: .disk)
        #expect(await cache.containsImage(forKey: "both", cacheType: .all) == .memory)
        #expect(await cache.containsImage(forKey: "both", cacheType: .disk) == .disk)
        #expect(await cache.containsImage(forKey: "disk", cacheType: .all) == .disk)
        #expect(await cache.containsImage(forKey: "disk", cacheType: .memory) == .none)
        #expect(await cache.containsImage(forKey: "nothing", cacheType: .all) == .none)
    }

    @Test("remove and clear act on the named tiers only")
    func removeAndClear() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory)
        for key in ["a", "b"] { try await cache.store(photo(), data: nil, forKey: key, cacheType: .all) }
        await cache.removeImage(forKey: "a", cacheType: .memory)
        #expect(await cache.containsImage(forKey: "a", cacheType: .all) == .disk)
        await cache.removeImage(forKey: "a", cacheType: .all)
        #expect(await cache.containsImage(forKey: "a", cacheType: .all) == .none)

        await cache.clear(.disk)
        #expect(await cache.totalDiskCount() == 0)
        #expect(cache.imageFromMemoryCache(forKey: "b") != nil)
        await cache.clear(.all)
        #expect(cache.memoryCache.totalCount == 0)
    }

    @Test("with shouldCacheImagesInMemory off, neither stores nor disk hits fill memory")
    func noMemoryTier() async throws {
        let directory = try TemporaryCacheDirectory()
        let cache = makeCache(directory, config: ImageCacheConfig(shouldCacheImagesInMemory: false))
        try await cache.store(photo(), data: nil, forKey: "k", cacheType: .all)
        #expect(cache.imageFromMemoryCache(forKey: "k") == nil)
        #expect(await cache.queryImage(forKey: "k", options: [], decodeOptions: .default, cacheType: .all)?.cacheType == .disk)
        #expect(cache.memoryCache.totalCount == 0)
    }
}
