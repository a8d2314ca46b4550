import Foundation
import NIOPosix
import Synchronization
import Testing
@testable import WebImage

/// A cache of the app's own that notes, for each store, whether it ran on an event loop (where a
/// store that blocks on its disk would stall every connection of the loop).
private final class LoopWatchingCache: ImageCaching {
    private let stores = Mutex<[Bool]>([])
    var storesOnALoop: [Bool] { stores.withLock { $0 } }

    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        let onALoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
        stores.withLock { $0.append(onALoop) }
    }

    func queryImage(forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType) async -> ImageCacheResult? { nil }
    func removeImage(forKey key: String, cacheType: ImageCacheType) async {}
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType { .none }
    func clear(_ cacheType: ImageCacheType) async {}
}

/// A bulk prefetch on the lean client runs its loads on the client's event loops; a slow disk must
/// never hold one of them, or every connection the loop serves (the Redis client's and
/// AsyncHTTPClient's too, on the shared group) stalls with it.
@Suite("A slow disk never stalls an event loop")
struct SlowDiskTests {
    /// One worker (on the client's first loop) storing each image's bytes to disk, waiting for the store.
    private static var storingToDisk: ImagePrefetcher.Settings {
        var settings = ImagePrefetcher.Settings()
        settings.maxConcurrentPrefetchCount = 1
        settings.options = [.waitStoreCache]
        settings.context.storeCacheType = .disk
        settings.context.queryCacheType = .none
        return settings
    }

    /// Downloads `url` from a task on `loop`; raises the returned flag once it has the bytes.
    private func download(_ url: URL, with downloader: ImageDownloader, on loop: any TaskExecutor) -> Flag {
        let done = Flag()
        Task(executorPreference: loop) {
            if let result = try? await downloader.loadImage(with: url), !result.data.isEmpty { done.raise() }
        }
        return done
    }

    @Test("a prefetch's store waits for a busy disk off the loop: a download on that loop completes meanwhile")
    func busyDisk() async throws {
        try await withOrigin(over: .http1) { origin, downloader in
            origin.route("/a.png", .fixture("png-rgb.png"))
            origin.route("/b.png", .fixture("png-rgb.png"))
            let fixture = try ManagerFixture(loader: downloader)
            let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: Self.storingToDisk)
            let loop = try #require(downloader.bulkExecutors.first)
            let key = try #require(fixture.manager.cacheKey(for: origin.url("/a.png")))
            // The disk is busy: nothing in the cache's disk queue runs until it is resumed (as
            // ImageCacheCallbackTests does; no thread is held meanwhile).
            fixture.cache.ioQueue.suspend()
            let prefetch = Task { await prefetcher.prefetch([origin.url("/a.png")]) }
            let storing: @Sendable () -> Bool = { fixture.cache.writeOrder.withLock { !$0.isSettled(key) } }
            #expect(await eventually { storing() })  // the prefetch's store has begun: it waits for the disk
            let unrelated = download(origin.url("/b.png"), with: downloader, on: loop)
            #expect(await eventually { unrelated.isRaised })
            #expect(storing())  // and the store still waits
            fixture.cache.ioQueue.resume()
            #expect(await prefetch.value == (1, 0))
            #expect(await fixture.manager.diskImageExists(for: origin.url("/a.png")))
        }
    }

    @Test("a prefetch into a cache of the app's own runs off the loops: the cache, which may block on its disk, is never called on one")
    func cacheOfTheAppsOwn() async throws {
        try await withOrigin(over: .http1) { origin, downloader in
            origin.route("/a.png", .fixture("png-rgb.png"))
            origin.route("/b.png", .fixture("png-rgb.png"))
            let cache = LoopWatchingCache()
            var settings = Self.storingToDisk
            settings.maxConcurrentPrefetchCount = 2
            let prefetcher = ImagePrefetcher(manager: ImageManager(cache: cache, loader: downloader), settings: settings)
            #expect(await prefetcher.prefetch([origin.url("/a.png"), origin.url("/b.png")]) == (2, 0))
            #expect(cache.storesOnALoop == [false, false])
        }
    }
}
