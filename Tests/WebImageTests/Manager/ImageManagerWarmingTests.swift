import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A prefetch that only stores the original's bytes on disk (what `webimage prefetch` asks for)
/// goes from the loader to the disk without the long way's operation and shared-load entry; it
/// must decide and store exactly as the long way would.
@Suite("ImageManager: warming a disk-only cache")
struct ImageManagerWarmingTests {
    /// Settings of a prefetch that stores to disk only, as the CLI's.
    private func diskOnly(_ change: (inout ImagePrefetcher.Settings) -> Void = { _ in }) -> ImagePrefetcher.Settings {
        var settings = ImagePrefetcher.Settings()
        settings.options = [.lowPriority, .waitStoreCache]
        settings.context.storeCacheType = .disk
        settings.context.queryCacheType = .none
        change(&settings)
        return settings
    }

    /// A disk-only prefetch of one URL whose response the origin holds until `gate` opens.
    private func prefetchHeldAtTheOrigin(
        _ origin: TestOrigin, _ manager: ImageManager
    ) async -> (gate: OriginGate, url: URL, prefetch: Task<(finished: Int, skipped: Int), Never>) {
        let gate = OriginGate()
        origin.route("/a.png", .gated(gate, .fixture("png-rgb.png")))
        let url = origin.url("/a.png")
        let settings = diskOnly()
        let prefetch = Task { await ImagePrefetcher(manager: manager, settings: settings).prefetch([url]) }
        #expect(await eventually { origin.inFlightRequests == 1 })
        return (gate, url, prefetch)
    }

    @Test("the original's bytes and validators land on disk under the URL's key, once per URL; memory stays empty", arguments: DownloaderConfig.Transport.carriers)
    func storesBytes(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let body = try Fixtures.data("png-rgb.png")
            origin.route("/a.png", .validated(.bytes(body), etag: "\"v1\"", lastModified: nil, contentType: "image/png"))
            let url = origin.url("/a.png")
            let settings = diskOnly()
            #expect(manager.prepare(url: url, options: settings.options, context: settings.context).onlyStoresOriginalBytesOnDisk)
            #expect(!manager.prepare(url: url, options: [], context: WebImageContext()).onlyStoresOriginalBytesOnDisk)
            let prefetcher = ImagePrefetcher(manager: manager, settings: diskOnly())
            #expect(await prefetcher.prefetch([url, url]) == (2, 0))
            let key = try #require(manager.cacheKey(for: url))
            #expect(cache.diskCache.data(forKey: key) == body)
            #expect(cache.diskCache.validators(forKey: key)?.etag == "\"v1\"")
            #expect(cache.imageFromMemoryCache(forKey: key) == nil)
            #expect(origin.requestCount("/a.png") == 1)
            #expect(!manager.isRunning && manager.sharedLoads.count == 0)
        }
    }

    @Test("a body that is not an image, a cut-off body and a 404 are skipped and leave nothing on disk; the bad image is blocklisted", arguments: DownloaderConfig.Transport.carriers)
    func failuresStoreNothing(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let png = try Fixtures.data("png-rgb.png")
            origin.route("/text.png", .body(.bytes(Data("not an image".utf8)), contentType: "image/png"))
            origin.route("/cut.png", .truncated(.bytes(png), sentBytes: png.count / 2, contentType: "image/png"))
            origin.route("/gone.png", .status(404))
            let urls = ["/text.png", "/cut.png", "/gone.png"].map(origin.url)
            let prefetcher = ImagePrefetcher(manager: manager, settings: diskOnly())
            #expect(await prefetcher.prefetch(urls) == (3, 3))
            for url in urls {
                let key = try #require(manager.cacheKey(for: url))
                #expect(cache.diskCache.data(forKey: key) == nil)
            }
            #expect(manager.isFailedURL(urls[0]))
            #expect(!manager.isFailedURL(urls[2]), "a 404 may be fixed on the server (SD's rule)")
            // Blocklisted: not asked again, unless the options say to retry.
            #expect(await prefetcher.prefetch([urls[0]]) == (1, 1))
            #expect(origin.requestCount("/text.png") == 1)
            let retrying = ImagePrefetcher(manager: manager, settings: diskOnly { $0.options.insert(.retryFailed) })
            #expect(await retrying.prefetch([urls[0]]) == (1, 1))
            #expect(origin.requestCount("/text.png") == 2)
        }
    }

    @Test("with a disk query, bytes already on disk are neither requested nor decoded again", arguments: DownloaderConfig.Transport.carriers)
    func diskHitIsEnough(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            origin.route("/a.png", .fixture("png-rgb.png"))
            let url = origin.url("/a.png")
            let key = try #require(manager.cacheKey(for: url))
            try await cache.store(nil, data: Data("kept as it is".utf8), forKey: key, cacheType: .disk)
            let prefetcher = ImagePrefetcher(manager: manager, settings: diskOnly { $0.context.queryCacheType = .disk })
            #expect(await prefetcher.prefetch([url]) == (1, 0))
            #expect(origin.requestCount("/a.png") == 0)
            #expect(cache.imageFromMemoryCache(forKey: key) == nil)
        }
    }

    @Test("the options processor, the key filter and shouldDownload decide as on the long way", arguments: DownloaderConfig.Transport.carriers)
    func sameDecisions(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            origin.route("/a.png", .fixture("png-rgb.png"))
            origin.route("/b.png", .fixture("png-rgb.png"))
            manager.settings.cacheKeyFilter = { "filtered-" + $0.lastPathComponent }
            manager.settings.shouldDownload = { $0.path != "/b.png" }
            manager.settings.optionsProcessor = { _, options, context in (options.union(.retryFailed), context) }
            let prefetcher = ImagePrefetcher(manager: manager, settings: diskOnly())
            #expect(await prefetcher.prefetch([origin.url("/a.png"), origin.url("/b.png")]) == (2, 1))
            let png = try Fixtures.data("png-rgb.png")
            #expect(cache.diskCache.data(forKey: "filtered-a.png") == png)
            #expect(origin.requestCount("/b.png") == 0)
        }
    }

    @Test("a prefetch and a load that wants the image, at once: one request, the image in memory, the bytes on disk", arguments: DownloaderConfig.Transport.carriers)
    func sharesTheDownload(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let loader = CountingLoader(downloader)  // counts callers as they join the download
            let fixture = try ManagerFixture(loader: loader)
            let (manager, cache) = (fixture.manager, fixture.cache)
            let (gate, url, prefetch) = await prefetchHeldAtTheOrigin(origin, manager)
            defer { gate.open() }
            let load = Task { try await manager.loadImage(with: url).image.pixelSize }
            #expect(await eventually { loader.counter.count == 2 })
            gate.open()
            #expect(await prefetch.value == (1, 0))
            #expect(try await load.value == PixelSize(width: 48, height: 32))
            #expect(origin.requestCount("/a.png") == 1)
            // Both stored the key; asked through the cache, a read comes after the writes asked before it.
            #expect(await manager.diskImageExists(for: url))
            #expect(cache.imageFromMemoryCache(forKey: try #require(manager.cacheKey(for: url))) != nil)
        }
    }

    @Test("cancelling mid-download answers at once, stops the request and stores nothing", arguments: DownloaderConfig.Transport.carriers)
    func cancelStoresNothing(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let (gate, url, prefetch) = await prefetchHeldAtTheOrigin(origin, manager)
            defer { gate.open() }
            prefetch.cancel()
            #expect(await prefetch.value == (0, 0))
            gate.open()
            #expect(await eventually { origin.inFlightRequests == 0 })
            let key = try #require(manager.cacheKey(for: url))
            #expect(cache.diskCache.data(forKey: key) == nil)
            #expect(!manager.isFailedURL(url))
        }
    }
}
