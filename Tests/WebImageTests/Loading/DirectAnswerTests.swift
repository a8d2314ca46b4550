import Foundation
import NIOPosix
import Synchronization
import Testing
@testable import WebImage

/// Bulk loads (issue 15): an awaiting task is answered where its response ended, and a quick
/// structure check runs there too; app callbacks still never run on an event loop.
@Suite("Direct answers for awaiting loads")
struct DirectAnswerTests {
    private let check = ImageLoaderContext(coder: StructureCheckCoder())

    @Test("an awaiting load and a callback caller share one download; the callback still runs off the event loops", arguments: DownloaderConfig.Transport.carriers)
    func awaitingAndCallbackShare(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/a.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            let onEventLoop = Mutex<Bool?>(nil)
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.jpg"), options: [], context: check, progress: nil) { result in
                onEventLoop.withLock { $0 = MultiThreadedEventLoopGroup.currentEventLoop != nil }
                recorder.completion(result)
            }
            let awaited = Task { try await downloader.loadImage(with: origin.url("/a.jpg"), context: check) }
            // The gate opens only once the awaiting load has joined: a loaded machine once ran its
            // task after the first download had ended, and it made a request of its own.
            #expect(await eventually {
                origin.requestCount("/a.jpg") == 1 && downloader.downloads.waiting == 2
            })
            gate.open()
            let result = try await awaited.value
            #expect(result.data == (try Fixtures.data("jpeg-baseline.jpg")))
            #expect(result.image === StructureCheckCoder.placeholder)
            let callback = try #require(await recorder.value())
            #expect(callback.data == result.data)
            #expect(onEventLoop.withLock { $0 } == false)
            #expect(origin.requestCount("/a.jpg") == 1)
        }
    }

    @Test("a truncated body checked where it ended is a typed error, for the awaiting caller and the callback caller alike", arguments: DownloaderConfig.Transport.carriers)
    func truncatedBodyChecked(_ carrier: DownloaderConfig.Transport) async throws {
        let jpeg = try Fixtures.data("jpeg-baseline.jpg")
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/cut.jpg", .body(.bytes(jpeg.prefix(jpeg.count / 2)), contentType: "image/jpeg"))
            let (recorder, _) = downloader.record(origin.url("/cut.jpg"), context: check)
            await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(with: origin.url("/cut.jpg"), context: check)
            }
            guard case .failure(.badImageData) = await recorder.result() else {
                Issue.record("the callback caller did not get badImageData")
                return
            }
        }
    }

    @Test("cancelling awaiting loads at any moment: each ends once, with the image or 2002, and the downloader is left empty", arguments: DownloaderConfig.Transport.carriers)
    func cancelRaces(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/r.png", .fixture("png-rgb.png"))
            for round in 0..<40 {
                let load = Task { try await downloader.loadImage(with: origin.url("/r.png?\(round)"), context: check) }
                if round % 2 == 0 { try await Task.sleep(for: .microseconds(round * 40)) }
                load.cancel()
                switch await load.result {
                case .success(let result): #expect(!result.data.isEmpty)
                case .failure(let error): #expect(error as? WebImageError == .cancelled)
                }
            }
            #expect(await eventually { downloader.currentDownloadCount == 0 })
        }
    }
}

@Suite("QuickDecoding")
struct QuickDecodingTests {
    @Test("the structure check of a small JPEG, PNG, GIF or WebP is quick; JPEG XL (a decode) and bodies over 1 MiB are not")
    func quickChecks() throws {
        let coder = StructureCheckCoder()
        for name in ["jpeg-baseline.jpg", "png-rgb.png", "gif-pillow-animated.gif", "webp-alpha.webp"] {
            #expect(coder.decodesQuickly(try Fixtures.data(name)), "\(name)")
        }
        #expect(!coder.decodesQuickly(try Fixtures.data("jxl-orientation6.jxl")))
        var large = try Fixtures.data("jpeg-baseline.jpg")
        large.append(Data(count: StructureCheckCoder.quickCheckLimit))
        #expect(!coder.decodesQuickly(large))
    }
}
