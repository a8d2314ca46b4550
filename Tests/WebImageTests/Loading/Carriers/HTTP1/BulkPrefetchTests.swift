import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A prefetch through a downloader on the lean HTTP/1.1 client runs its workers on the client's
/// event loops (``BulkLoadExecuting``), each keeping the connection its loop's pool holds — a
/// policy of the one engine, not a second one: every load is an ordinary download, so everything
/// a download promises holds (shared requests, progress, the queue, redirects, stale keep-alive
/// connections, cancel).
@Suite("Bulk prefetch: workers on the lean client's event loops, through the one engine")
struct BulkPrefetchTests {
    /// A downloader on the lean client with `slots` downloads, a manager over a fresh cache, and a
    /// prefetcher with `workers` workers storing to disk only; shut down afterwards. `above` is
    /// added to the manager's loaders with a higher priority than the downloader.
    private func withBulk(
        slots: Int = 4, workers: Int = 4, coder: (any ImageCoder)? = StructureCheckCoder(), above: [any ImageLoader] = [],
        _ body: (TestOrigin, ImageDownloader, ManagerFixture, ImagePrefetcher) async throws -> Void
    ) async throws {
        try await withOrigin(over: .http1, { $0.maxConcurrentDownloads = slots }) { origin, downloader in
            let fixture = try ManagerFixture(loader: ImageLoadersManager(loaders: [FileLoader(), DataURLLoader(), downloader] + above))
            var settings = ImagePrefetcher.Settings()
            settings.maxConcurrentPrefetchCount = workers
            settings.options = [.lowPriority, .waitStoreCache]
            settings.context.storeCacheType = .disk
            settings.context.queryCacheType = .disk
            settings.context.imageCoder = coder
            try await body(origin, downloader, fixture, ImagePrefetcher(manager: fixture.manager, settings: settings))
        }
    }

    private func downloadsInFlight(_ downloader: ImageDownloader) -> Int {
        downloader.downloads.count
    }

    /// A prefetch of `/a.png`, whose response the origin holds until `gate` opens, once its
    /// request is out.
    private func prefetchHeld(
        _ origin: TestOrigin, _ downloader: ImageDownloader, _ prefetcher: ImagePrefetcher
    ) async -> (gate: OriginGate, url: URL, prefetch: Task<(finished: Int, skipped: Int), Never>) {
        let gate = OriginGate()
        origin.route("/a.png", .gated(gate, .fixture("png-rgb.png")))
        let url = origin.url("/a.png")
        let prefetch = Task { await prefetcher.prefetch([url]) }
        #expect(await eventually { downloadsInFlight(downloader) == 1 && origin.inFlightRequests == 1 })
        return (gate, url, prefetch)
    }

    /// Starts a callback-form download of `url` (it joins before it returns).
    private func joinedLoad(_ downloader: ImageDownloader, _ url: URL) -> LoadRecorder {
        let load = LoadRecorder()
        _ = downloader.downloadImage(with: url, options: .lowPriority, completed: load.completion)
        return load
    }

    /// Callers waiting on the downloads in flight besides the prefetch's own.
    private func joined(_ downloader: ImageDownloader) -> Int {
        downloader.downloads.waiting - downloader.downloads.count
    }

    @Test("each worker keeps one connection: 40 URLs over 2 workers take 2 connections, one request each, all cached")
    func oneConnectionPerWorker() async throws {
        try await withBulk(workers: 2) { origin, downloader, fixture, prefetcher in
            origin.route("/p.png", .fixture("png-rgb.png"))
            let list = (0..<40).map { origin.url("/p.png?\($0)") }
            #expect(await prefetcher.prefetch(list) == (40, 0))
            #expect(origin.requests.count == 40 && Set(origin.requests.map(\.uri)).count == 40)
            #expect(origin.connectionCount == 2)
            for url in list { #expect(await fixture.manager.diskImageExists(for: url)) }
            #expect(downloader.currentDownloadCount == 0 && downloadsInFlight(downloader) == 0)
        }
    }

    @Test("a loader above the lean downloader that takes http URLs gets every prefetched URL, though the workers run on the downloader's loops")
    func theLoaderThatWouldLoadLoads() async throws {
        let other = ImageDownloader(config: .forSpecs(.asyncHTTPClient))
        let above = CountingLoader(other)
        try await withBulk(above: [above]) { origin, _, fixture, prefetcher in
            origin.route("/p.png", .fixture("png-rgb.png"))
            let list = (0..<8).map { origin.url("/p.png?\($0)") }
            let counts = await prefetcher.prefetch(list + [URL(string: "ftp://x/p.png")!])
            #expect(counts == (9, 1), "\(counts)")
            #expect(above.counter.count == 8 && origin.requests.count == 8)
            for url in list { #expect(await fixture.manager.diskImageExists(for: url)) }
        }
        try await other.shutdown()
    }

    @Test("a load of the same URL and decode joins the prefetch's request: one request, the load gets the image, the prefetch stores the bytes")
    func loadJoinsThePrefetch() async throws {
        try await withBulk(coder: nil) { origin, downloader, fixture, prefetcher in
            let (gate, url, prefetch) = await prefetchHeld(origin, downloader, prefetcher)
            let load = joinedLoad(downloader, url)
            #expect(joined(downloader) == 1 && downloader.currentDownloadCount == 1)  // no second queue entry
            gate.open()
            #expect(await prefetch.value == (1, 0))
            let loaded = await load.result()
            #expect((try? loaded?.get())?.image.pixelSize == PixelSize(width: 48, height: 32))
            #expect(origin.requestCount("/a.png") == 1)
            #expect(await fixture.manager.diskImageExists(for: url))
        }
    }

    @Test("a load that wants progress joins the prefetch's request too, and gets its progress from it")
    func progressFromTheSharedRequest() async throws {
        try await withBulk(coder: nil) { origin, downloader, _, prefetcher in
            let (gate, url, prefetch) = await prefetchHeld(origin, downloader, prefetcher)
            let (load, _) = downloader.record(url, options: .lowPriority)
            #expect(joined(downloader) == 1)
            gate.open()
            #expect(await prefetch.value == (1, 0))
            let loaded = await load.result()
            #expect((try? loaded?.get()) != nil)
            #expect(load.progressValues.contains { $0.receivedSize > 0 })
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("two prefetches of one URL at once: one request, both finish")
    func twoPrefetchesShare() async throws {
        try await withBulk { origin, downloader, _, prefetcher in
            let (gate, url, first) = await prefetchHeld(origin, downloader, prefetcher)
            let second = Task { await prefetcher.prefetch([url]) }
            #expect(await eventually { joined(downloader) == 1 })
            gate.open()
            #expect(await first.value == (1, 0))
            #expect(await second.value == (1, 0))
            #expect(origin.requestCount("/a.png") == 1)
        }
    }

    @Test("a cancelled prefetch lets a joined load finish: the load gets its image from the one request")
    func cancelKeepsJoinedLoad() async throws {
        try await withBulk(coder: nil) { origin, downloader, _, prefetcher in
            let (gate, url, prefetch) = await prefetchHeld(origin, downloader, prefetcher)
            let load = joinedLoad(downloader, url)
            #expect(joined(downloader) == 1)
            prefetch.cancel()
            gate.open()
            let loaded = await load.result()
            #expect((try? loaded?.get())?.image.pixelSize == PixelSize(width: 48, height: 32))
            #expect(origin.requestCount("/a.png") == 1)
            _ = await prefetch.value
        }
    }

    @Test("cancelling a prefetch with nobody joined stops its request at once and stores nothing")
    func cancelStopsTheRequest() async throws {
        try await withBulk { origin, downloader, fixture, prefetcher in
            let (gate, url, prefetch) = await prefetchHeld(origin, downloader, prefetcher)
            defer { gate.open() }
            prefetch.cancel()
            #expect(await prefetch.value == (0, 0))
            #expect(await eventually { origin.inFlightRequests == 0 })
            #expect(!(await fixture.manager.diskImageExists(for: url)))
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test("the downloader's queue holds: suspended, nothing is requested until it resumes; never more requests at once than its slots")
    func queueLimits() async throws {
        try await withBulk(slots: 2, workers: 8) { origin, downloader, _, prefetcher in
            origin.route("/slow.png", .delayed(0.05, .fixture("png-rgb.png")))
            downloader.isSuspended = true
            let list = (0..<16).map { origin.url("/slow.png?\($0)") }
            let prefetch = Task { await prefetcher.prefetch(list) }
            try await Task.sleep(for: .milliseconds(200))
            #expect(origin.requests.isEmpty)
            downloader.isSuspended = false
            #expect(await prefetch.value == (16, 0))
            #expect(origin.maxConcurrentRequests <= 2)
            #expect(origin.requests.count == 16)
        }
    }

    @Test("a redirect is followed, each URL requested once, the image cached under the URL asked for")
    func redirect() async throws {
        try await withBulk { origin, _, fixture, prefetcher in
            origin.route("/moved.png", .redirect(to: "/a.png"))
            origin.route("/a.png", .fixture("png-rgb.png"))
            let url = origin.url("/moved.png")
            #expect(await prefetcher.prefetch([url]) == (1, 0))
            #expect(await fixture.manager.diskImageExists(for: url))
            #expect(origin.requestCount("/moved.png") == 1 && origin.requestCount("/a.png") == 1)
        }
    }

    @Test("the downloader's events for a prefetched load: start, response, stop, finish — a refused head's response too")
    func events() async throws {
        try await withBulk(workers: 1) { origin, downloader, _, prefetcher in
            origin.route("/p.png", .fixture("png-rgb.png"))
            origin.route("/gone.png", .status(404))
            let heard = Mutex<[String]>([])
            let events = downloader.events()
            let listening = Task {
                for await event in events {
                    let line = switch event {
                    case .start(let url): "start \(url.path)"
                    case .response(let url, let response): "response \(url.path) \(response.statusCode)"
                    case .stop(let url): "stop \(url.path)"
                    case .finish(let url, let metrics, let error): "finish \(url.path) \(error?.code ?? 0) \(metrics.statusCode ?? 0)"
                    }
                    heard.withLock { $0.append(line) }
                }
            }
            defer { listening.cancel() }
            #expect(await prefetcher.prefetch([origin.url("/p.png"), origin.url("/gone.png")]) == (2, 1))
            #expect(await eventually { heard.withLock { $0.count } == 8 })
            #expect(heard.withLock { $0 } == [
                "start /p.png", "response /p.png 200", "stop /p.png", "finish /p.png 0 200",
                "start /gone.png", "response /gone.png 404", "stop /gone.png", "finish /gone.png 2001 404",
            ])
        }
    }

    @Test("no idle limit (a modifier set the request's timeout to infinity) and no resource limit (infinity): a prefetched load and an ordinary one both load")
    func infiniteTimeout() async throws {
        try await withOrigin(over: .http1, {
            $0.requestModifier = RequestModifier.timeout(.infinity)
            $0.resourceTimeout = .infinity
        }) { origin, downloader in
            origin.route("/p.png", .fixture("png-rgb.png"))
            #expect(try await downloader.loadImage(with: origin.url("/p.png?ordinary")).data.count > 0)
            let fixture = try ManagerFixture(loader: downloader)
            var settings = ImagePrefetcher.Settings()
            settings.context.storeCacheType = .disk
            let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
            #expect(await prefetcher.prefetch([origin.url("/p.png")]) == (1, 0))
        }
    }

    @Test("a kept-alive connection the origin closes right after answering: the next load goes out once more on a new one")
    func staleConnection() async throws {
        try await withBulk(workers: 1) { origin, _, _, prefetcher in
            origin.route("/once.png", .thenClose(.fixture("png-rgb.png")))
            let list = (0..<10).map { origin.url("/once.png?\($0)") }
            #expect(await prefetcher.prefetch(list) == (10, 0))
            #expect(origin.requests.count == 10 && Set(origin.requests.map(\.uri)).count == 10)
        }
    }

    @Test("cancelAllDownloads fails the prefetch's load in flight; the rest of the list still loads")
    func cancelAllDownloads() async throws {
        try await withBulk(workers: 1) { origin, downloader, _, prefetcher in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/held.png", .gated(gate, .fixture("png-rgb.png")))
            origin.route("/p.png", .fixture("png-rgb.png"))
            let list = [origin.url("/held.png")] + (0..<3).map { origin.url("/p.png?\($0)") }
            let prefetch = Task { await prefetcher.prefetch(list) }
            #expect(await eventually { origin.inFlightRequests == 1 })
            downloader.cancelAllDownloads()
            #expect(await prefetch.value == (4, 1))
            #expect(origin.requestCount("/p.png") == 3)
        }
    }

    @Test("Connection: close — each load opens a new connection and none goes out on the closing one")
    func connectionClose() async throws {
        try await withBulk(workers: 1) { origin, _, _, prefetcher in
            origin.route("/c.png", .body(.fixture("png-rgb.png"), contentType: "image/png", headers: [("Connection", "close")]))
            let list = (0..<5).map { origin.url("/c.png?\($0)") }
            #expect(await prefetcher.prefetch(list) == (5, 0))
            #expect(origin.connectionCount == 5)
            #expect(origin.requests.count == 5)  // none retried after landing on a closing connection
        }
    }

    @Test("a later request's short idle timeout holds even though an earlier one armed the connection's timer for longer")
    func shortTimeoutAfterALongTimer() async throws {
        // Per request: 60 s for the first, 1 s for the one whose head comes only after 30 s.
        let modifier = RequestModifier { request in
            var request = request
            request.timeout = request.url.path == "/late.png" ? TestTiming.seconds(1) : 60
            return request
        }
        try await withOrigin(over: .http1, { $0.requestModifier = modifier }) { origin, downloader in
            origin.route("/p.png", .fixture("png-rgb.png"))
            origin.route("/late.png", .delayed(30, .fixture("png-rgb.png")))
            let fixture = try ManagerFixture(loader: downloader)
            var settings = ImagePrefetcher.Settings()
            settings.maxConcurrentPrefetchCount = 1
            settings.context.storeCacheType = .disk
            settings.context.imageCoder = StructureCheckCoder()
            let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
            let started = ContinuousClock.now
            let outcome = await prefetcher.prefetch([origin.url("/p.png"), origin.url("/late.png")])
            let elapsed = ContinuousClock.now - started
            #expect(outcome == (2, 1), "the late one times out, the first loads")
            // Far under 30 s however busy the machine: neither the 60-s timer nor the head ended it.
            #expect(elapsed < .seconds(TestTiming.seconds(20)), "ended by its own 1-s timeout")
        }
    }
}
