import AsyncHTTPClient
import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("ImageDownloader basics")
struct ImageDownloaderTests {
    @Test("downloads and decodes a fixture, with response, validators and metrics", arguments: DownloaderConfig.Transport.carriers)
    func download(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let jpeg = try Fixtures.data("jpeg-baseline.jpg")
            origin.route("/a.jpg", .body(.bytes(jpeg), contentType: "image/jpeg",
                                         headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60")]))
            // Times are checked against the load's own span, not a fixed limit: under ThreadSanitizer
            // on a busy CI machine this load took over 2 s.
            let (before, start) = (Date(), ContinuousClock.now)
            let result = try await downloader.loadImage(with: origin.url("/a.jpg"))
            let (after, elapsed) = (Date(), start.duration(to: .now).seconds)
            #expect(result.image.format == .jpeg)
            #expect(result.data == jpeg)
            #expect(result.response?.statusCode == 200)
            #expect(result.response?.mimeType == "image/jpeg")
            #expect(result.validators?.etag == "\"v1\"")
            let expiry = try #require(result.validators?.expirationDate)
            #expect(expiry >= before.addingTimeInterval(59) && expiry <= after.addingTimeInterval(61))
            let metrics = try #require(result.metrics)
            #expect(metrics.receivedBytes == Int64(jpeg.count))
            #expect(metrics.statusCode == 200)
            #expect(metrics.redirectCount == 0)
            #expect(metrics.duration >= 0 && metrics.duration <= elapsed)
            #expect(origin.requestCount("/a.jpg") == 1)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test("a config with no limits (every timeout infinite) makes a downloader that loads, on either client",
          arguments: DownloaderConfig.Transport.carriers, [DownloaderConfig.Transport.asyncHTTPClient, .http1])
    func unlimitedTimeouts(_ carrier: DownloaderConfig.Transport, transport: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, {
            $0.transport = transport
            $0.downloadTimeout = .infinity
            $0.idleConnectionTimeout = .infinity
            $0.resourceTimeout = .infinity
        }) { origin, downloader in
            origin.route("/p.png", .fixture("png-rgb.png"))
            let result = try await downloader.loadImage(with: origin.url("/p.png"))
            #expect(result.image.format == .png)
        }
    }

    @Test("a downloader on the app's own HTTPClient loads through it; its shutdown leaves the client to the app")
    func appProvidedClient() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/a.png", .fixture("png-rgb.png"))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let downloader = ImageDownloader(client: client)
        var outcome: Result<Int, any Error>
        do {
            let loaded = try await downloader.loadImage(with: origin.url("/a.png"))
            try await downloader.shutdown()
            let response = try await client.get(url: origin.url("/a.png").absoluteString).get()
            #expect(response.status == .ok, "the app's client still works")
            outcome = .success(loaded.image.width)
        } catch {
            outcome = .failure(error)
        }
        try await client.shutdown()
        await origin.shutdown()
        #expect(try outcome.get() > 0)
        #expect(origin.requestCount("/a.png") == 2)
    }

    @Test("progress: (0,-1) at start, (0,expected) on response, then (received,expected) up to the whole", arguments: DownloaderConfig.Transport.carriers)
    func progress(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let data = Fixtures.largeProgressiveJPEG
            origin.route("/p.jpg", .drip(.bytes(data), bytesPerSecond: data.count * 10, chunkSize: data.count / 8, contentType: "image/jpeg"))
            let (recorder, _) = downloader.record(origin.url("/p.jpg"))
            _ = try #require(await recorder.value())
            let values = recorder.progressValues.filter { $0.partialImage == nil }
            let expected = Int64(data.count)
            let pairs = values.map { [$0.receivedSize, $0.expectedSize] }
            #expect(pairs.first == [0, -1])
            #expect(pairs.dropFirst().first == [0, expected])
            #expect(pairs.last == [expected, expected])
            #expect(values.count > 4)
            let sizes = values.map(\.receivedSize)
            #expect(sizes == sizes.sorted())
            #expect(recorder.progressAfterCompletion == 0)
        }
    }

    @Test("minimumProgressInterval throttles by fraction; first and last still come", arguments: DownloaderConfig.Transport.carriers)
    func progressThrottled(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.minimumProgressInterval = 0.5 }) { origin, downloader in
            let data = Data(count: 40_000)
            origin.route("/t.bin", .drip(.bytes(data), bytesPerSecond: 20_000_000, chunkSize: 1000))
            let (recorder, _) = downloader.record(origin.url("/t.bin"))
            _ = await recorder.result()
            let body = recorder.progressValues.filter { $0.receivedSize > 0 }
            #expect(body.count <= 3, "\(body.map(\.receivedSize))")
            #expect(body.last?.receivedSize == 40_000)
        }
    }

    @Test("the event stream reports start, response, stop and finish", arguments: DownloaderConfig.Transport.carriers)
    func events(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/e.png", .fixture("png-rgb.png"))
            let stream = downloader.events()
            _ = try await downloader.loadImage(with: origin.url("/e.png"))
            var kinds: [String] = []
            for await event in stream {
                switch event {
                case .start: kinds.append("start")
                case .response(_, let response): kinds.append("response \(response.statusCode)")
                case .stop: kinds.append("stop")
                case .finish(_, let metrics, let error):
                    kinds.append("finish \(error == nil) \(metrics.receivedBytes > 0)")
                }
                if kinds.count == 4 { break }
            }
            #expect(kinds == ["start", "response 200", "stop", "finish true true"])
        }
    }

    @Test("non-http URLs are 1000 without a request; shut down downloaders refuse with 2000", arguments: DownloaderConfig.Transport.carriers)
    func invalidURLAndShutdown(_ carrier: DownloaderConfig.Transport) async throws {
        let origin = try await TestOrigin.start()
        let downloader = ImageDownloader(config: .forSpecs(carrier))
        #expect(!downloader.canRequestImage(for: URL(string: "ftp://x/a.png")!))
        await #expect(throws: WebImageError.invalidURL("ftp://x/a.png")) {
            try await downloader.loadImage(with: URL(string: "ftp://x/a.png")!)
        }
        try await downloader.shutdown()
        try await downloader.shutdown()  // idempotent
        do {
            _ = try await downloader.loadImage(with: origin.url("/x.png"))
            Issue.record("a shut-down downloader downloaded")
        } catch {
            #expect(error.code == 2000)
        }
        #expect(origin.requests.isEmpty)
        await origin.shutdown()
    }

    @Test("a downloader dropped without shutdown closes its client and its kept-alive connection, on either client",
          arguments: DownloaderConfig.Transport.carriers, [DownloaderConfig.Transport.asyncHTTPClient, .http1])
    func droppedWithoutShutdown(_ carrier: DownloaderConfig.Transport, transport: DownloaderConfig.Transport) async throws {
        let origin = try await TestOrigin.start()
        defer { origin.stop() }
        origin.route("/a.png", .fixture("png-rgb.png"))
        var config = DownloaderConfig.forSpecs(carrier)
        config.transport = transport
        var downloader: ImageDownloader? = ImageDownloader(config: config)
        let events = try #require(downloader).events()
        let loaded = try await downloader?.loadImage(with: origin.url("/a.png"))
        #expect(loaded?.image.format == .png)
        #expect(origin.openConnectionCount == 1, "kept alive after the load")
        // Without the downloader's own shutdown, AsyncHTTPClient's deinit would trap here (debug).
        downloader = nil
        #expect(await eventually { origin.openConnectionCount == 0 })
        let ended = Flag()
        let reader = Task {
            for await _ in events {}
            ended.raise()
        }
        #expect(await eventually { ended.isRaised }, "the event stream ends with the downloader")
        reader.cancel()
    }

    @Test("the loaders manager sends http URLs to the downloader", arguments: DownloaderConfig.Transport.carriers)
    func throughManager(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/m.gif", .fixture("gif-pillow-animated.gif"))
            let manager = ImageLoadersManager(loaders: [downloader, FileLoader(), DataURLLoader()])
            let result = try await manager.loadImage(with: origin.url("/m.gif"))
            #expect(result.image.isAnimated)
            let first = try await manager.loadImage(with: origin.url("/m.gif"), options: .decodeFirstFrameOnly)
            #expect(!first.image.isAnimated)
        }
    }
}
