import Foundation
import Testing
@testable import WebImage

@Suite("ImageManager: callbacks, cancellation, blocklist, hooks")
struct ImageManagerCallbackTests {
    @Test("a memory hit answers the callback form before it returns")
    func memoryHitSynchronous() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png")
        _ = try await fixture.manager.loadImage(with: url)
        let answers = ManagerAnswers()
        let operation = fixture.manager.loadImage(with: url) { answers.record($0) }
        #expect(answers.count == 1)
        #expect(try answers.last?.get().cacheType == .memory)
        operation.cancel()
        #expect(answers.count == 1)
    }

    @Test("cancel answers cancelled (2002) inside the call, once; the load, held at the origin and then released, never answers after it", arguments: DownloaderConfig.Transport.carriers)
    func cancelOnce(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/held.jpg", .gated(gate, .fixture("jpeg-progressive.jpg")))
            let answers = ManagerAnswers()
            let operation = manager.loadImage(with: origin.url("/held.jpg")) { answers.record($0) }
            #expect(await eventually { origin.inFlightRequests == 1 })
            operation.cancel()
            #expect(answers.count == 1)
            #expect(answers.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
            #expect(operation.isCancelled)
            gate.open()
            // Everything the load started has ended: the response, the shared load, the operation.
            #expect(await eventually { origin.inFlightRequests == 0 && manager.sharedLoads.count == 0 && !manager.isRunning })
            #expect(answers.count == 1)
            #expect(await cache.totalDiskCount() == 0)
        }
    }

    @Test("cancelling the calling task while the origin holds the response: cancelled (2002), nothing stored, nothing left running", arguments: DownloaderConfig.Transport.carriers)
    func taskCancellation(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, cache in
            let gate = OriginGate()
            defer { gate.open() }
            origin.route("/held.jpg", .gated(gate, .fixture("jpeg-progressive.jpg")))
            let task = Task { try await manager.loadImage(with: origin.url("/held.jpg")) }
            #expect(await eventually { origin.inFlightRequests == 1 })
            task.cancel()
            gate.open()
            let result = await task.result
            #expect(throws: WebImageError.cancelled) { try result.get() }
            #expect(await eventually { origin.inFlightRequests == 0 && manager.sharedLoads.count == 0 && !manager.isRunning })
            #expect(cache.memoryCache.totalCount == 0)
            #expect(await cache.totalDiskCount() == 0)
        }
    }

    @Test("cancelAll answers every running load with cancelled")
    func cancelAll() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let urls = try (0..<8).map { try fixture.file("jpeg-progressive.jpg", as: "p\($0).jpg") }
        let answers = ManagerAnswers()
        for url in urls { fixture.manager.loadImage(with: url) { answers.record($0) } }
        fixture.manager.cancelAll()
        #expect(await eventually { answers.count == urls.count })
        #expect(!fixture.manager.isRunning)
    }

    @Test("bad image data blocklists the URL; the next load fails at once with blackListed; retryFailed loads and clears it")
    func blocklist() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = fixture.directory.appendingPathComponent("broken.png")
        try Data("not an image at all".utf8).write(to: url)
        await #expect(throws: WebImageError.self) { try await fixture.manager.loadImage(with: url) }
        #expect(fixture.manager.isFailedURL(url))
        await #expect(throws: WebImageError.blackListed) { try await fixture.manager.loadImage(with: url) }
        #expect(loader.counter.count == 1)

        try Fixtures.data("png-rgb.png").write(to: url)
        _ = try await fixture.manager.loadImage(with: url, options: .retryFailed)
        #expect(!fixture.manager.isFailedURL(url))
        #expect(loader.counter.count == 2)
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .all) != .none)
    }

    @Test("a failure is never cached; removeFailedURL and removeAllFailedURLs unblock")
    func failureNotCached() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = fixture.directory.appendingPathComponent("truncated.jpg")
        var bytes = try Fixtures.data("jpeg-baseline.jpg")
        bytes.removeLast(bytes.count / 2)
        try bytes.write(to: url)
        await #expect(throws: WebImageError.self) { try await fixture.manager.loadImage(with: url, options: .waitStoreCache) }
        #expect(await fixture.cache.containsImage(forKey: url.absoluteString, cacheType: .all) == .none)
        #expect(fixture.manager.isFailedURL(url))
        fixture.manager.removeFailedURL(url)
        #expect(!fixture.manager.isFailedURL(url))
        await #expect(throws: WebImageError.self) { try await fixture.manager.loadImage(with: url) }
        fixture.manager.removeAllFailedURLs()
        #expect(!fixture.manager.isFailedURL(url))
    }

    @Test("a missing file is not blocklisted when the hook says so, and shouldDownload can veto a load")
    func hooks() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let missing = fixture.directory.appendingPathComponent("missing.png")
        var settings = ImageManager.Settings()
        settings.shouldBlockFailedURL = { _, _ in false }
        settings.shouldDownload = { $0.lastPathComponent != "vetoed.png" }
        fixture.manager.settings = settings
        await #expect(throws: WebImageError.self) { try await fixture.manager.loadImage(with: missing) }
        #expect(!fixture.manager.isFailedURL(missing))
        let vetoed = try fixture.file("png-rgb.png", as: "vetoed.png")
        await #expect(throws: WebImageError.notInCache) { try await fixture.manager.loadImage(with: vetoed) }
        #expect(loader.counter.count == 1)
    }

    @Test("the options processor rewrites options and context before anything else")
    func optionsProcessor() async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        let url = try fixture.file("png-rgb.png")
        var settings = ImageManager.Settings()
        settings.optionsProcessor = { _, options, context in
            var context = context
            context.thumbnailPixelSize = PixelSize(width: 4, height: 4)
            return (options.union(.fromCacheOnly), context)
        }
        fixture.manager.settings = settings
        await #expect(throws: WebImageError.notInCache) { try await fixture.manager.loadImage(with: url) }
        settings.optionsProcessor = { _, options, context in
            var context = context
            context.thumbnailPixelSize = PixelSize(width: 4, height: 4)
            return (options, context)
        }
        fixture.manager.settings = settings
        #expect(try await fixture.manager.loadImage(with: url).image.width == 4)
        #expect(loader.counter.count == 1)
    }

    @Test("the stream form yields the image and ends; a failure ends it with the error")
    func stream() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try fixture.file("png-rgb.png")
        var images = 0
        for try await event in fixture.manager.images(with: url) {
            if case .image(let result) = event { images += 1; #expect(result.image.width > 0) }
        }
        #expect(images == 1)
        let missing = fixture.directory.appendingPathComponent("none.png")
        await #expect(throws: WebImageError.self) {
            for try await _ in fixture.manager.images(with: missing) {}
        }
    }

    @Test("an unsupported URL scheme is invalidURL (1000)")
    func unsupportedScheme() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let url = try #require(URL(string: "gopher://example.com/a.png"))
        await #expect(throws: WebImageError.self) { try await fixture.manager.loadImage(with: url) }
        do {
            _ = try await fixture.manager.loadImage(with: url)
        } catch {
            #expect(error.code == 1000)
        }
    }
}
