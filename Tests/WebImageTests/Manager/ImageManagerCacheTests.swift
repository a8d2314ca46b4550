import Foundation
import Testing
@testable import WebImage

@Suite("ImageManager: keys, cache and derivation")
struct ImageManagerCacheTests {
    @Test("the cache key: absolute string, key filter, thumbnail then transformer before the extension")
    func cacheKeys() throws {
        let manager = ImageManager(cache: ImageCache(directory: TemporaryFolder.url("keys")), loader: FileLoader())
        let url = try #require(URL(string: "https://example.com/a/b.png?x=1"))
        #expect(manager.cacheKey(for: url) == "https://example.com/a/b.png?x=1")
        let filtered = WebImageContext(cacheKeyFilter: { $0.absoluteString.replacingOccurrences(of: "?x=1", with: "") })
        #expect(manager.cacheKey(for: url, context: filtered) == "https://example.com/a/b.png")
        let derived = WebImageContext(
            imageTransformer: FlippingTransformer(horizontal: true, vertical: false),
            thumbnailPixelSize: PixelSize(width: 64, height: 32))
        let key = try #require(manager.cacheKey(for: url, context: derived))
        #expect(key.hasPrefix("https://example.com/a/b-Thumbnail(%7B64.000000,32.000000%7D,1)-"))
        #expect(key.hasSuffix(".png?x=1"))
        #expect(manager.cacheKey(for: url, context: WebImageContext(cacheKeyFilter: { _ in nil })) == nil)
        // The manager's key filter makes the original's key too; a filter that gives none, no key.
        manager.settings.cacheKeyFilter = { $0.absoluteString.replacingOccurrences(of: "?x=1", with: "") }
        #expect(manager.cacheKey(for: url) == "https://example.com/a/b.png")
        manager.settings.cacheKeyFilter = { _ in nil }
        #expect(manager.cacheKey(for: url) == nil)
    }

    @Test("with a context the key is the one a load stores under (the manager's transformer and options processor apply); without one it is the original's (SD's cacheKeyForURL:)", .onOwnThreads)
    func publicKeyMatchesLoads() async throws {
        let fixture = try ManagerFixture(loader: CountingLoader())
        let url = try fixture.file("png-rgb.png")
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        fixture.manager.settings.transformer = flip
        let loaded = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
        let key = try #require(fixture.manager.cacheKey(for: url, context: WebImageContext()))
        // The original's key: what the downloaded bytes were stored under, untouched by the transformer.
        #expect(fixture.manager.cacheKey(for: url) == url.absoluteString)
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .disk) == .disk)
        #expect(key == TransformedCacheKeys.transformedKey(for: url.absoluteString, transformerKey: flip.transformerKey))
        #expect(fixture.cache.imageFromMemoryCache(forKey: key) === loaded.image)
        fixture.cache.memoryCache.removeAll()
        #expect(await fixture.manager.cachedImageExists(for: url))
        #expect(await fixture.manager.diskImageExists(for: url))

        // One load opts out of the manager's transformer (SD's NSNull): untransformed, plain key.
        let none = WebImageContext(imageTransformer: NoTransformer())
        #expect(fixture.manager.cacheKey(for: url, context: none) == url.absoluteString)
        let plain = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: none)
        #expect(plain.image.bitmap == (try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))).bitmap)
        #expect(plain.image.bitmap != loaded.image.bitmap)

        // A processor that asks for thumbnails: the key says so, and nothing is found for it yet.
        fixture.manager.settings.transformer = nil
        fixture.manager.settings.optionsProcessor = { _, options, context in
            var context = context
            context.thumbnailPixelSize = PixelSize(width: 8, height: 8)
            return (options, context)
        }
        let thumbKey = try #require(fixture.manager.cacheKey(for: url, context: WebImageContext()))
        #expect(thumbKey.contains("-Thumbnail("))
        #expect(fixture.manager.cacheKey(for: url) == url.absoluteString)
        #expect(await !fixture.manager.cachedImageExists(for: url))
        let thumb = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
        #expect(fixture.cache.imageFromMemoryCache(forKey: thumbKey) === thumb.image)
        #expect(await fixture.manager.diskImageExists(for: url))
    }

    @Test("saveImageToCache(_:for:) stores an image the app has under the URL's original key: later loads find it in memory, then on disk, and load nothing")
    func saveImageToCache() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = fixture.directory.appendingPathComponent("never-written.png")  // a load would fail: no such file
        let image = try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))
        try await fixture.manager.saveImageToCache(image, for: url)
        let fromMemory = try await fixture.manager.loadImage(with: url)
        #expect(fromMemory.cacheType == .memory && fromMemory.image === image)
        fixture.cache.memoryCache.removeAll()
        let fromDisk = try await fixture.manager.loadImage(with: url)
        #expect(fromDisk.cacheType == .disk && fromDisk.image.bitmap == image.bitmap)
        #expect(loader.counter.count == 0)
    }

    @Test("first load from the loader, then memory, then — memory cleared — disk; one loader call")
    func cacheTiers() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("jpeg-baseline.jpg")
        let first = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
        #expect(first.cacheType == .none)
        #expect(first.data == (try Fixtures.data("jpeg-baseline.jpg")))
        #expect(try await fixture.manager.loadImage(with: url).cacheType == .memory)
        fixture.cache.memoryCache.removeAll()
        #expect(try await fixture.manager.loadImage(with: url).cacheType == .disk)
        #expect(loader.counter.count == 1)
        #expect(await fixture.manager.diskImageExists(for: url))
        #expect(await fixture.manager.cachedImageExists(for: url))
    }

    @Test("fromCacheOnly: a miss is notInCache (1004) without a load; fromLoaderOnly loads although cached")
    func cacheOnlyAndLoaderOnly() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("png-rgb.png")
        await #expect(throws: WebImageError.notInCache) {
            try await fixture.manager.loadImage(with: url, options: .fromCacheOnly)
        }
        #expect(loader.counter.count == 0)
        _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
        let again = try await fixture.manager.loadImage(with: url, options: .fromLoaderOnly)
        #expect(again.cacheType == .none)
        #expect(loader.counter.count == 2)
        #expect(WebImageError.notInCache.code == 1004)
    }

    @Test("a thumbnail is derived from the cached original's bytes without a second load")
    func thumbnailFromCachedOriginal() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("jpeg-progressive.jpg")
        let full = try await fixture.manager.loadImage(with: url, options: .waitStoreCache)
        let context = WebImageContext(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let thumb = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(max(thumb.image.width, thumb.image.height) == 20)
        #expect(max(full.image.width, full.image.height) > 20)
        #expect(thumb.cacheType == .disk)
        #expect(loader.counter.count == 1)
        // The thumbnail is now cached under its own key, and the original's memory entry is the full image.
        let key = try #require(fixture.manager.cacheKey(for: url, context: context))
        #expect(fixture.cache.imageFromMemoryCache(forKey: key) === thumb.image)
        #expect(fixture.cache.imageFromMemoryCache(forKey: url.absoluteString) === full.image)
    }

    @Test("a thumbnail load stores the original bytes on disk (only) and the thumbnail in all tiers")
    func thumbnailStores() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgba.png")
        let context = WebImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8))
        let thumb = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(thumb.cacheType == .none && thumb.data == nil)
        let original = url.absoluteString
        #expect(await fixture.cache.containsImage(forKey: original, cacheType: .all) == .disk)
        #expect(await fixture.cache.diskImageData(forKey: original) == (try Fixtures.data("png-rgba.png")))
        let key = try #require(fixture.manager.cacheKey(for: url, context: context))
        #expect(await fixture.cache.containsImage(forKey: key, cacheType: .all) == .memory)
        let stored = try #require(await fixture.cache.imageFromDiskCache(forKey: key))
        #expect(stored.pixelSize == thumb.image.pixelSize)
    }

    @Test("a transformer runs after decoding; its output is cached under the transformed key, the original on disk")
    func transformerStores() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("png-rgb.png")
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        let context = WebImageContext(imageTransformer: flip)
        let result = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        let plain = try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))
        #expect(result.image.bitmap == flip.transform(plain, forKey: "x")?.bitmap)
        let key = try #require(fixture.manager.cacheKey(for: url, context: context))
        #expect(fixture.cache.imageFromMemoryCache(forKey: key) === result.image)
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .all) == .disk)

        // Another transform of the same original comes from its cached bytes.
        let rotate = WebImageContext(imageTransformer: RotationTransformer(angle: .pi / 2, fitSize: true))
        let rotated = try await fixture.manager.loadImage(with: url, context: rotate)
        #expect(rotated.cacheType == .disk)
        #expect(rotated.image.width == plain.height)
        #expect(loader.counter.count == 1)
    }

    @Test("originalImageCache keeps the originals of derived loads apart; a later derivation reads them there, without a load")
    func separateOriginalCache() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let originals = ImageCache(directory: fixture.directory.appendingPathComponent("originals"))
        let url = try fixture.file("png-rgb.png")
        var thumbnail = WebImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8))
        thumbnail.originalImageCache = originals
        let thumb = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: thumbnail)
        #expect(await originals.containsImage(forKey: url.absoluteString, cacheType: .all) == .disk)
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .all) == .none)
        let thumbKey = try #require(fixture.manager.cacheKey(for: url, context: thumbnail))
        #expect(fixture.cache.imageFromMemoryCache(forKey: thumbKey) === thumb.image)

        var flipped = WebImageContext(imageTransformer: FlippingTransformer(horizontal: true, vertical: false))
        flipped.originalImageCache = originals
        let derived = try await fixture.manager.loadImage(with: url, context: flipped)
        #expect(derived.cacheType == .disk)
        #expect(loader.counter.count == 1)

        // A load that derives nothing is its own original: the load's cache, as without the context key.
        var plain = WebImageContext()
        plain.originalImageCache = originals
        _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: plain)
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .disk) == .disk)
    }

    @Test("a thumbnail that is also transformed reads back from disk at the size it was stored")
    func derivedReadBack() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("jpeg-progressive.jpg")
        let context = WebImageContext(
            imageTransformer: ResizingTransformer(size: PixelSize(width: 30, height: 10), scaleMode: .fill),
            thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let first = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(first.image.pixelSize == PixelSize(width: 30, height: 10))
        fixture.cache.memoryCache.removeAll()
        let again = try await fixture.manager.loadImage(with: url, context: context)
        #expect(again.cacheType == .disk)
        #expect(again.image.pixelSize == PixelSize(width: 30, height: 10))
    }

    @Test("decodeFirstFrameOnly keeps the still out of memory; a plain load still gets the animation")
    func firstFrameOnlyNotInMemory() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("gif-pillow-animated.gif")
        let still = try await fixture.manager.loadImage(with: url, options: [.decodeFirstFrameOnly, .waitStoreCache])
        #expect(still.image.frames.count == 1)
        #expect(fixture.cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
        let animation = try await fixture.manager.loadImage(with: url)
        #expect(animation.cacheType == .disk)
        #expect(animation.image.isAnimated)
    }

    @Test("queryDiskDataSync: a disk hit answers the callback form before it returns")
    func diskDataSync() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png")
        try await fixture.cache.store(nil, data: try Fixtures.data("png-rgb.png"), forKey: url.absoluteString, cacheType: .disk)
        let answers = ManagerAnswers()
        fixture.manager.loadImage(with: url, options: .queryDiskDataSync) { answers.record($0) }
        #expect(answers.count == 1)
        #expect(try answers.last?.get().cacheType == .disk)
    }

    @Test("animated images are not transformed unless transformAnimatedImage")
    func animatedTransform() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("gif-pillow-animated.gif")
        let flipV = WebImageContext(imageTransformer: TintTransformer(color: RGBA(r: 0, g: 0, b: 255, a: 255)))
        let untouched = try await fixture.manager.loadImage(with: url, options: .fromLoaderOnly, context: flipV)
        let original = try ImageCodersManager.shared.decode(try Fixtures.data("gif-pillow-animated.gif"))
        #expect(untouched.image.bitmap == original.bitmap)
        let flipped = try await fixture.manager.loadImage(
            with: url, options: [.fromLoaderOnly, .transformAnimatedImage], context: flipV)
        #expect(flipped.image.frames.count == original.frames.count)
        #expect(flipped.image.bitmap != original.bitmap)
    }

    @Test("a cache serializer decides the stored bytes")
    func cacheSerializer() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png")
        let context = WebImageContext(cacheSerializer: { image, _, _ in
            try? ImageCodersManager.shared.encode(image, as: .webp, options: ImageEncodeOptions(lossless: true))
        })
        _ = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        let stored = try #require(await fixture.cache.diskImageData(forKey: url.absoluteString))
        #expect(ImageFormat.detect(stored) == .webp)
    }

    @Test("store and query cache types from the context are honoured")
    func contextCacheTypes() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("png-gray.png")
        _ = try await fixture.manager.loadImage(
            with: url, options: .waitStoreCache, context: WebImageContext(storeCacheType: .memory))
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .disk) == .none)
        let diskOnly = WebImageContext(queryCacheType: .disk)
        #expect(try await fixture.manager.loadImage(with: url, context: diskOnly).cacheType == .none)
        #expect(loader.counter.count == 2)
    }

    @Test("the @2x in a key and the context's scale factor set the image scale")
    func scale() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png", as: "icon@2x.png")
        #expect(try await fixture.manager.loadImage(with: url).image.scale == 2)
        let other = try fixture.file("png-gray.png", as: "plain.png")
        #expect(try await fixture.manager.loadImage(with: other, context: WebImageContext(imageScaleFactor: 3)).image.scale == 3)
    }

    @Test("an explicit scale factor of 1 wins over the key's @2x on a disk hit too")
    func explicitScaleOneOnDisk() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png", as: "icon@2x.png")
        let one = WebImageContext(imageScaleFactor: 1, storeCacheType: .disk)
        let loaded = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: one)
        #expect(loaded.image.scale == 1)
        let fromDisk = try await fixture.manager.loadImage(with: url, context: one)
        #expect(fromDisk.cacheType == .disk)
        #expect(fromDisk.image.scale == 1)
        // Without a context scale the cache still reads the key's.
        let plain = await fixture.cache.queryImage(forKey: url.absoluteString, options: [], decodeOptions: .default, cacheType: .disk)
        #expect(plain?.image?.scale == 2)
    }
}

/// Reads PNGs stored back to front: a format only this coder understands.
private struct ReversedPNGCoder: ImageCoder {
    var coderKey: String? { "ReversedPNGCoder" }
    func canDecode(_ data: Data) -> Bool { ImageFormat.detect(Data(data.reversed())) == .png }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try PNGCoder().decode(Data(data.reversed()), options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { Data() }
}

@Suite("ImageManager: the context's coder")
struct ImageManagerContextCoderTests {
    @Test("a disk hit is decoded by the load's context coder (SD decodes cached data with .imageCoder): no second load, the bytes kept")
    func diskHitsUseTheContextCoder() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = fixture.directory.appendingPathComponent("reversed.bin")
        try Data(try Fixtures.data("png-rgb.png").reversed()).write(to: url)
        let context = WebImageContext(imageCoder: ReversedPNGCoder())
        let expected = try PNGCoder().decode(try Fixtures.data("png-rgb.png"), options: .default)

        let first = try await fixture.manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(first.image.bitmap == expected.bitmap)
        fixture.cache.memoryCache.removeAll()
        let second = try await fixture.manager.loadImage(with: url, context: context)
        #expect(second.cacheType == .disk)
        #expect(second.image.bitmap == expected.bitmap)
        #expect(loader.counter.count == 1, "the disk hit was not taken for a miss")
        #expect(fixture.cache.imageFromMemoryCache(forKey: url.absoluteString) === second.image, "synced to memory as the cache would")

        // The synchronous disk read of the callback form, the same way.
        fixture.cache.memoryCache.removeAll()
        let answers = ManagerAnswers()
        fixture.manager.loadImage(with: url, options: .queryDiskDataSync, context: context, progress: nil) { answers.record($0) }
        #expect(answers.count == 1, "answered before the call returned")
        #expect(try answers.all.first?.get().image.bitmap == expected.bitmap)
        #expect(loader.counter.count == 1)
    }
}
