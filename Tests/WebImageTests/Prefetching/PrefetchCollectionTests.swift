import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A manager over a real downloader on `transport`, with a disk cache of `limit` bytes, and an
/// origin serving `count` pages; runs `body`, then shuts everything down.
private func withChapter(
    _ transport: DownloaderConfig.Transport, pages count: Int, limit: Int = 0,
    _ body: (TestOrigin, ImageCache, ImageManager, [URL]) async throws -> Void
) async throws {
    let origin = try await TestOrigin.start()
    var config = DownloaderConfig()
    config.transport = transport
    let downloader = ImageDownloader(config: config)
    let directory = TemporaryFolder.url("collection")
    var cacheConfig = ImageCacheConfig()
    cacheConfig.disk = DiskCacheConfig(maxDiskSize: limit)
    let cache = ImageCache(directory: directory, config: cacheConfig)
    let manager = ImageManager(cache: cache, loader: downloader)
    let urls = (0..<count).map { index in
        origin.route("/ch1/\(index).png", .fixture("png-rgb.png"))
        return origin.url("/ch1/\(index).png")
    }
    do {
        try await body(origin, cache, manager, urls)
    } catch {
        Issue.record(error)
    }
    try? await downloader.shutdown()
    await origin.shutdown()
    try? FileManager.default.removeItem(at: directory)
}

/// Disk-only prefetching, as `webimage collection add` sets it up.
private func bulkSettings() -> ImagePrefetcher.Settings {
    var settings = ImagePrefetcher.Settings()
    settings.maxConcurrentPrefetchCount = 4
    settings.options = [.lowPriority, .waitStoreCache, .retryFailed]
    settings.context.storeCacheType = .disk
    settings.context.queryCacheType = .disk
    settings.context.imageCoder = StructureCheckCoder()
    return settings
}

@Suite("ImagePrefetcher: collections, pause, retries")
struct PrefetchCollectionTests {
    static let transports: [DownloaderConfig.Transport] = [.asyncHTTPClient, .http1]

    @Test("prefetch into a collection pins every page, counts their bytes, and keeps them through trims of a small quota", arguments: transports)
    func intoCollection(_ transport: DownloaderConfig.Transport) async throws {
        let pageBytes = try Fixtures.data("png-rgb.png").count
        try await withChapter(transport, pages: 12, limit: pageBytes * 20) { origin, cache, manager, urls in
            _ = cache.diskCache.totalSize
            let prefetcher = ImagePrefetcher(manager: manager, settings: bulkSettings())
            let (finished, skipped) = try await prefetcher.prefetch(urls, into: "chapter-1")
            #expect(finished == 12 && skipped == 0)
            let collection = try #require(cache.collections().first)
            #expect(collection.name == "chapter-1" && collection.cachedCount == 12 && collection.bytes == pageBytes * 12)
            // Unrelated entries now push the cache over its quota again and again.
            for index in 0..<30 { try cache.diskCache.store(Data(count: pageBytes), forKey: "other-\(index)") }
            #expect(try cache.entries(in: "chapter-1").allSatisfy(\.isCached), "no page was evicted")
            let again = try await prefetcher.prefetch(urls, into: "chapter-1")
            #expect(again == (12, 0))
            #expect(urls.allSatisfy { origin.requestCount($0.path) == 1 }, "a second run requests nothing")
        }
    }

    @Test("a page that cannot fit beside the pinned ones is skipped, not reported finished", arguments: transports)
    func overTheQuota(_ transport: DownloaderConfig.Transport) async throws {
        let pageBytes = try Fixtures.data("png-rgb.png").count
        try await withChapter(transport, pages: 6, limit: pageBytes * 4) { _, cache, manager, urls in
            var settings = bulkSettings()
            settings.maxConcurrentPrefetchCount = 1
            let prefetcher = ImagePrefetcher(manager: manager, settings: settings)
            _ = cache.diskCache.totalSize  // the index is built: every store keeps the limit at once
            let (finished, skipped) = try await prefetcher.prefetch(urls, into: "big")
            #expect(finished == 6 && skipped >= 2)
            let entries = try cache.entries(in: "big")
            #expect(entries.count { $0.isCached } == 6 - skipped, "every page reported finished is on disk")
            #expect(cache.diskCache.totalSize <= pageBytes * 4 + 4096)
        }
    }

    @Test("pause holds back the next loads until resume; the loads then finish", arguments: transports)
    func pauseAndResume(_ transport: DownloaderConfig.Transport) async throws {
        try await withChapter(transport, pages: 8) { origin, _, manager, urls in
            let gate = OriginGate()
            origin.route(urls[0].path, .gated(gate, .fixture("png-rgb.png")))
            var settings = bulkSettings()
            settings.maxConcurrentPrefetchCount = 1
            let prefetcher = ImagePrefetcher(manager: manager, settings: settings)
            let done = Mutex<(Int, Int)?>(nil)
            let token = try prefetcher.prefetch(urls, into: "paused", completed: { f, s in done.withLock { $0 = (f, s) } })
            #expect(await eventually { origin.inFlightRequests == 1 })
            token.pause()
            #expect(token.isPaused)
            gate.open()
            #expect(await eventually { token.finishedCount == 1 })
            try await Task.sleep(for: .milliseconds(300))
            #expect(token.finishedCount == 1 && origin.requests.count == 1, "nothing starts while paused")
            token.resume()
            #expect(await eventually { done.withLock { $0 } != nil })
            #expect(done.withLock { $0 }! == (8, 0))
            #expect(token.byteCount > 0 && token.requestedCount == 8)
        }
    }

    @Test("transient failures (503, a reset) are retried with backoff up to the limit; a 404 is not", arguments: transports)
    func retries(_ transport: DownloaderConfig.Transport) async throws {
        try await withChapter(transport, pages: 3) { origin, _, manager, urls in
            let calls = Mutex<[String: Int]>([:])
            let png = try Fixtures.data("png-rgb.png")
            origin.route(urls[0].path, .dynamic { request in
                let call = calls.withLock { $0[request.path, default: 0] += 1; return $0[request.path]! }
                return call <= 2 ? .status(503) : .body(.bytes(png), contentType: "image/png")
            })
            origin.route(urls[1].path, .dynamic { request in
                let call = calls.withLock { $0[request.path, default: 0] += 1; return $0[request.path]! }
                return call == 1 ? .reset(.bytes(png), sentBytes: 100, contentType: "image/png") : .body(.bytes(png), contentType: "image/png")
            })
            origin.route(urls[2].path, .status(404))
            var settings = bulkSettings()
            settings.retryLimit = 3
            settings.retryDelay = .milliseconds(20)
            let prefetcher = ImagePrefetcher(manager: manager, settings: settings)
            let (finished, skipped) = try await prefetcher.prefetch(urls, into: "flaky")
            #expect(finished == 3 && skipped == 1)
            #expect(origin.requestCount(urls[0].path) == 3)
            #expect(origin.requestCount(urls[1].path) == 2)
            #expect(origin.requestCount(urls[2].path) == 1, "a 404 is not transient")
            settings.retryLimit = 1
            let limited = ImagePrefetcher(manager: manager, settings: settings)
            calls.withLock { $0 = [:] }
            let other = origin.url("/other.png")
            origin.route(other.path, .status(503))
            _ = try await limited.prefetch([other], into: "flaky")
            #expect(origin.requestCount(other.path) == 2, "one try and one retry")
        }
    }
}
