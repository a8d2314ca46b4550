import Foundation
import Testing
@testable import WebImage

/// A manager over a fresh cache, loading through a real ``ImageDownloader`` from the loopback
/// origin; both shut down afterwards.
func withManager(
    over carrier: DownloaderConfig.Transport,
    _ body: (TestOrigin, ImageManager, ImageCache) async throws -> Void
) async throws {
    try await withOrigin(over: carrier) { origin, downloader in
        let directory = TemporaryFolder.url("mgr-http")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ImageCache(directory: directory, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 256 << 20)))
        let manager = ImageManager(cache: cache, loader: ImageLoadersManager(loaders: [FileLoader(), DataURLLoader(), downloader]))
        try await body(origin, manager, cache)
    }
}

@Suite("ImageManager over HTTP")
struct ImageManagerHTTPTests {
    @Test("1,000 concurrent loads of one uncached URL: one loader call, one request, every caller gets the image", arguments: DownloaderConfig.Transport.carriers)
    func coalescing(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let directory = TemporaryFolder.url("mgr-http")
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = ImageCache(directory: directory, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 256 << 20)))
            let loader = CountingLoader(downloader)
            let manager = ImageManager(cache: cache, loader: loader)
            origin.route("/one.jpg", .delayed(TestTiming.seconds(0.2), .fixture("jpeg-baseline.jpg")))
            let url = origin.url("/one.jpg")
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<1_000 { group.addTask { try await manager.loadImage(with: url).image.width } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes.count == 1_000)
            #expect(Set(sizes).count == 1 && sizes[0] > 0)
            // One shared load from cache query to memory store: callers that come while it runs
            // join it, later ones hit memory — however slowly a busy machine starts them.
            #expect(loader.counter.count == 1)
            #expect(origin.requestCount("/one.jpg") == 1)
            #expect(await eventually { !manager.isRunning && manager.sharedLoads.count == 0 })
        }
    }

    @Test("a thumbnail load and a full load of one URL at once are not merged: each gets its own image", arguments: DownloaderConfig.Transport.carriers)
    func differentDecodesDoNotShare(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/both.jpg", .delayed(0.2, .fixture("jpeg-progressive.jpg")))
            let url = origin.url("/both.jpg")
            let thumbnail = WebImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8))
            async let small = manager.loadImage(with: url, context: thumbnail)
            async let full = manager.loadImage(with: url)
            let (smallImage, fullImage) = try await (small.image, full.image)
            #expect(max(smallImage.width, smallImage.height) == 8)
            #expect(max(fullImage.width, fullImage.height) > 8)
            #expect(origin.requestCount("/both.jpg") == 2)
        }
    }

    @Test("cancelling the operation, or the calling task, stops the download at the origin", arguments: DownloaderConfig.Transport.carriers)
    func cancelStopsDownload(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/held.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            let url = origin.url("/held.jpg")

            let answers = ManagerAnswers()
            let operation = manager.loadImage(with: url) { answers.record($0) }
            #expect(await eventually { origin.inFlightRequests == 1 })
            operation.cancel()
            #expect(answers.count == 1)
            #expect(answers.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
            #expect(await eventually { origin.inFlightRequests == 0 })

            let task = Task { try await manager.loadImage(with: url) }
            #expect(await eventually { origin.requestCount("/held.jpg") == 2 && origin.inFlightRequests == 1 })
            task.cancel()
            await #expect(throws: WebImageError.cancelled) { try await task.value }
            #expect(await eventually { origin.inFlightRequests == 0 })
            #expect(await eventually { !manager.isRunning })
            #expect(await cache.containsImage(forKey: url.absoluteString, cacheType: .all) == .none)
        }
    }

    @Test("undecodable bytes blocklist the URL (no second request); a 404 does not", arguments: DownloaderConfig.Transport.carriers)
    func blocklist(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            origin.route("/junk.jpg", .body(.bytes(Data(repeating: 7, count: 500)), contentType: "image/jpeg"))
            origin.route("/missing.jpg", .status(404))
            let junk = origin.url("/junk.jpg")
            await #expect(throws: WebImageError.self) { try await manager.loadImage(with: junk) }
            await #expect(throws: WebImageError.blackListed) { try await manager.loadImage(with: junk) }
            #expect(origin.requestCount("/junk.jpg") == 1)
            #expect(await cache.containsImage(forKey: junk.absoluteString, cacheType: .all) == .none)

            let missing = origin.url("/missing.jpg")
            for _ in 0..<2 {
                await #expect(throws: WebImageError.invalidDownloadStatusCode(404)) { try await manager.loadImage(with: missing) }
            }
            #expect(origin.requestCount("/missing.jpg") == 2)
            #expect(!manager.isFailedURL(missing))
        }
    }

    @Test("a thumbnail of a cached original is derived without a second request", arguments: DownloaderConfig.Transport.carriers)
    func thumbnailWithoutRequest(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/photo.jpg", .fixture("jpeg-progressive.jpg"))
            let url = origin.url("/photo.jpg")
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)
            let thumb = try await manager.loadImage(
                with: url, context: WebImageContext(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
            #expect(max(thumb.image.width, thumb.image.height) == 16)
            #expect(origin.requestCount("/photo.jpg") == 1)
        }
    }

    @Test("refreshCached: the cached image first; a 304 gives no second answer, new bytes give one", arguments: DownloaderConfig.Transport.carriers)
    func revalidation(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            origin.route("/live.png", .validated(.fixture("png-rgb.png"), etag: "\"v1\"", lastModified: nil))
            let url = origin.url("/live.png")
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)

            let unchanged = ManagerAnswers()
            manager.loadImage(with: url, options: .refreshCached) { unchanged.record($0) }
            #expect(await eventually { origin.requestCount("/live.png") == 2 && !manager.isRunning })
            #expect(unchanged.count == 1)
            #expect(origin.requests("/live.png").last?.header("if-none-match") == "\"v1\"")

            // A 304 that brings a newer Last-Modified updates the stored validators (RFC 9111 §4.3.4).
            let newer = "Tue, 01 Dec 2026 10:00:00 GMT"
            origin.route("/live.png", .validated(.fixture("png-rgb.png"), etag: "\"v1\"", lastModified: newer))
            manager.loadImage(with: url, options: .refreshCached) { unchanged.record($0) }
            #expect(await eventually { origin.requestCount("/live.png") == 3 && !manager.isRunning })
            #expect(unchanged.count == 2)
            #expect(await eventually { cache.diskCache.validators(forKey: url.absoluteString)?.lastModified == newer })
            #expect(cache.diskCache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            origin.route("/live.png", .validated(.fixture("png-gray.png"), etag: "\"v2\"", lastModified: nil))
            let changed = ManagerAnswers()
            manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache]) { changed.record($0) }
            #expect(await eventually { changed.count == 2 })
            let rgb = try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))
            #expect(try changed.all.first?.get().image.bitmap == rgb.bitmap)  // the cached image came first
            let fresh = try #require(try changed.all.last?.get())
            #expect(fresh.cacheType == .none)
            let gray = try ImageCodersManager.shared.decode(try Fixtures.data("png-gray.png"))
            #expect(fresh.image.bitmap == gray.bitmap)
            #expect(try await manager.loadImage(with: url, options: .fromCacheOnly).image.bitmap == gray.bitmap)
        }
    }

    @Test("over an ImageCachesManager, the response's validators reach the member cache that keeps them", arguments: DownloaderConfig.Transport.carriers)
    func validatorsThroughCachesManager(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let directory = TemporaryFolder.url("mgr-http")
            defer { try? FileManager.default.removeItem(at: directory) }
            let disk = ImageCache(directory: directory, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 0)))
            let otherDirectory = TemporaryFolder.url("mgr-http")
            defer { try? FileManager.default.removeItem(at: otherDirectory) }
            let other = ImageCache(directory: otherDirectory)
            var policies = ImageCachesManager.Policies()
            policies.store = .concurrent
            let manager = ImageManager(cache: ImageCachesManager(caches: [other, disk], policies: policies), loader: downloader)
            let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
            origin.route("/v.png", .validated(.fixture("png-rgb.png"), etag: "\"e1\"", lastModified: modified))
            let url = origin.url("/v.png")
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)
            let kept = await disk.storedValidators(forKey: url.absoluteString)
            #expect(kept?.lastModified == modified && kept?.etag == "\"e1\"")
        }
    }

    @Test("refreshCached against a 304 declaring 32 TiB: the cached image stands and nothing is reserved for the body", arguments: DownloaderConfig.Transport.carriers)
    func revalidationWithHugeDeclaredLength(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/huge304.png", .validated(.fixture("png-rgb.png"), etag: "\"v1\"", lastModified: nil))
            let url = origin.url("/huge304.png")
            let first = try await manager.loadImage(with: url, options: .waitStoreCache)

            origin.route("/huge304.png", .notModified(declaredLength: 35_184_372_088_832))
            let answers = ManagerAnswers()
            manager.loadImage(with: url, options: .refreshCached) { answers.record($0) }
            #expect(await eventually { origin.requestCount("/huge304.png") == 2 && !manager.isRunning })
            #expect(answers.count == 1)
            #expect(try answers.all.first?.get().image.bitmap == first.image.bitmap)
        }
    }

    @Test("progressive loads stream partial images before the final one", arguments: DownloaderConfig.Transport.carriers)
    func progressiveStream(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let data = Fixtures.largeProgressiveJPEG
            // A quarter of a second of drip, stretched with the run's time scale: under ThreadSanitizer
            // the first partial decode outlasted the unstretched drip on AsyncHTTPClient, and none came.
            let rate = Int(Double(data.count * 4) / TestTiming.scale)
            origin.route("/prog.jpg", .drip(.bytes(data), bytesPerSecond: rate, chunkSize: data.count / 16, contentType: "image/jpeg"))
            var partials = 0
            var finals = 0
            for try await event in manager.images(with: origin.url("/prog.jpg"), options: .progressiveLoad) {
                switch event {
                case .partial: partials += 1
                case .image: finals += 1
                case .progress: break
                }
            }
            #expect(finals == 1)
            // Only the newest partial waits for the consumer, so a consumer that falls behind sees
            // fewer; this one keeps up.
            #expect(partials >= 1)
        }
    }

    @Test("refreshCached of a cached image turns progressive loading off, as SD does: the cached image, then the new one, no partial images between",
          arguments: DownloaderConfig.Transport.carriers)
    func refreshWithoutPartials(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            origin.route("/refresh.jpg", .fixture("jpeg-baseline.jpg"))
            let url = origin.url("/refresh.jpg")
            let cached = try await manager.loadImage(with: url, options: .waitStoreCache)
            let data = Fixtures.largeProgressiveJPEG
            // The drip of the progressive stream spec above, which makes partial images.
            let rate = Int(Double(data.count * 4) / TestTiming.scale)
            origin.route("/refresh.jpg", .drip(.bytes(data), bytesPerSecond: rate, chunkSize: data.count / 16, contentType: "image/jpeg"))
            var images: [Image] = []
            var partials = 0
            for try await event in manager.images(with: url, options: [.refreshCached, .progressiveLoad]) {
                switch event {
                case .partial: partials += 1
                case .image(let result): images.append(result.image)
                case .progress: break
                }
            }
            #expect(partials == 0)
            #expect(images.count == 2)
            #expect(images.first?.bitmap == cached.image.bitmap)
            #expect(images.last?.bitmap == (try ImageCodersManager.shared.decode(data)).bitmap)
        }
    }

    @Test("a consumer that reads nothing until the download is over finds one partial image waiting, not one per round", arguments: DownloaderConfig.Transport.carriers)
    func slowConsumerKeepsNewestPartial(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let data = Fixtures.largeProgressiveJPEG
            origin.route("/prog.jpg", .drip(.bytes(data), bytesPerSecond: data.count * 4, chunkSize: data.count / 16, contentType: "image/jpeg"))
            let progress = Counter()
            let events = manager.images(with: origin.url("/prog.jpg"), options: .progressiveLoad)
            // The load runs before anyone iterates; wait for it to be over.
            #expect(await eventually { origin.requestCount("/prog.jpg") == 1 && origin.inFlightRequests == 0 && !manager.isRunning })
            var partials = 0
            var finals = 0
            for try await event in events {
                switch event {
                case .partial: partials += 1
                case .image: finals += 1
                case .progress: progress.increment()
                }
            }
            #expect(finals == 1)
            #expect(partials <= 1)
            #expect(progress.count > 1)
        }
    }

    @Test("the prefetcher keeps at most maxConcurrentPrefetchCount requests in flight, across calls", arguments: DownloaderConfig.Transport.carriers)
    func prefetchWindow(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let urls = (0..<12).map { index -> URL in
                origin.route("/p\(index).png", .delayed(0.05, .fixture("png-gray.png")))
                return origin.url("/p\(index).png")
            }
            var settings = ImagePrefetcher.Settings()
            settings.maxConcurrentPrefetchCount = 3
            let prefetcher = ImagePrefetcher(manager: manager, settings: settings)
            // Two calls at once share the one window.
            async let first = prefetcher.prefetch(Array(urls[..<6]))
            async let second = prefetcher.prefetch(Array(urls[6...]))
            let results = await [first, second]
            #expect(results.map(\.finished) == [6, 6] && results.map(\.skipped) == [0, 0])
            #expect(origin.maxConcurrentRequests <= 3)
            #expect(origin.maxConcurrentRequests >= 2)
        }
    }
}
