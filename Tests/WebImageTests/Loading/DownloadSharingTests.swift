import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("Download sharing and cancellation (SD #3475/#3493)")
struct DownloadSharingTests {
    @Test("two callers of one URL share one request; cancelling one answers only it with 2002", arguments: DownloaderConfig.Transport.carriers)
    func cancelOneOfTwo(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/a.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            let (first, firstOperation) = downloader.record(origin.url("/a.jpg"))
            let (second, _) = downloader.record(origin.url("/a.jpg"))
            #expect(await eventually { origin.requestCount("/a.jpg") == 1 })
            firstOperation.cancel()
            #expect(await first.error() == .cancelled)
            gate.open()
            let image = try #require(await second.value())
            #expect(image.image.format == .jpeg)
            #expect(origin.requestCount("/a.jpg") == 1)
            #expect(await first.completionCount(after: .milliseconds(30)) == 1)
            #expect(second.completionCount == 1)
        }
    }

    @Test("cancelling the last caller stops the HTTP request", arguments: DownloaderConfig.Transport.carriers)
    func lastCancelStopsRequest(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            // 100 s of drip (stretched with the run's time scale, as the limits below are): the cancels
            // land mid-body however slowly the test itself is scheduled, and the request is still far
            // from its natural end when the checks below give up.
            origin.route("/slow.jpg", .drip(.zeros(200_000), bytesPerSecond: Int(2000 / TestTiming.scale), chunkSize: 100))
            let (a, opA) = downloader.record(origin.url("/slow.jpg"))
            let (b, opB) = downloader.record(origin.url("/slow.jpg"))
            #expect(await eventually { a.progressValues.count >= 2 })
            opA.cancel()
            opB.cancel()
            #expect(await a.error() == .cancelled)
            #expect(await b.error() == .cancelled)
            // The origin sees the connection go: nothing left in flight. Well before the drip would
            // end the request anyway — but not within 5 s, which the whole suite on a busy 2-core
            // CI machine once took (for both carriers at once) to run the close and this polling task.
            #expect(await eventually(timeout: .seconds(5)) { origin.maxConcurrentRequests == 1 && downloader.currentDownloadCount == 0 })
            #expect(await eventually(timeout: .seconds(30)) { origin.inFlightRequests == 0 })
        }
    }

    @Test("cancel then request again: a new operation, the origin counts 2", arguments: DownloaderConfig.Transport.carriers)
    func cancelThenRerequest(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/r.png", .gated(gate, .fixture("png-rgb.png")))
            let (first, operation) = downloader.record(origin.url("/r.png"))
            #expect(await eventually { origin.requestCount("/r.png") == 1 })
            operation.cancel()
            #expect(await first.error() == .cancelled)
            gate.open()
            let result = try await downloader.loadImage(with: origin.url("/r.png"))
            #expect(result.image.format == .png)
            #expect(origin.requestCount("/r.png") == 2)
            #expect(first.completionCount == 1)
        }
    }

    @Test("a finished operation is never reused: a later request downloads again", arguments: DownloaderConfig.Transport.carriers)
    func finishedNotReused(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/f.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/f.png"))
            _ = try await downloader.loadImage(with: origin.url("/f.png"))
            #expect(origin.requestCount("/f.png") == 2)
        }
    }

    @Test("200 staggered callers of one URL: one request, one callback each", arguments: DownloaderConfig.Transport.carriers)
    func twoHundredCallers(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/shared.webp", .gated(gate, .fixture("webp-lossy.webp")))
            var recorders: [LoadRecorder] = []
            var operations: [any WebImageOperation] = []
            for index in 0..<200 {
                let (recorder, operation) = downloader.record(origin.url("/shared.webp"))
                recorders.append(recorder)
                operations.append(operation)
                if index % 50 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            gate.open()
            for recorder in recorders { _ = await recorder.result() }
            try await Task.sleep(for: .milliseconds(30))
            #expect(recorders.allSatisfy { $0.completionCount == 1 })
            #expect(recorders.allSatisfy { $0.progressAfterCompletion == 0 })
            let succeeded = recorders.filter { if case .success = $0.result(now: ()) { true } else { false } }.count
            #expect(succeeded == 200)
            #expect(origin.requestCount("/shared.webp") == 1)
            _ = operations
        }
    }

    @Test("N callers of an empty body each get one 1001", arguments: DownloaderConfig.Transport.carriers)
    func emptyBodyManyCallers(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/empty.jpg", .gated(gate, .body(.bytes(Data()), contentType: "image/jpeg")))
            let recorders = (0..<8).map { _ in downloader.record(origin.url("/empty.jpg")).recorder }
            gate.open()
            for recorder in recorders { #expect(await recorder.error()?.code == 1001) }
            try await Task.sleep(for: .milliseconds(20))
            #expect(recorders.allSatisfy { $0.completionCount == 1 })
            #expect(origin.requestCount("/empty.jpg") == 1)
        }
    }

    @Test("cancel after completion does nothing; no callback ever follows a cancel", arguments: DownloaderConfig.Transport.carriers)
    func cancelAfterCompletion(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/c.png", .fixture("png-rgb.png"))
            let (recorder, operation) = downloader.record(origin.url("/c.png"))
            _ = try #require(await recorder.value())
            operation.cancel()
            #expect(await recorder.completionCount(after: .milliseconds(30)) == 1)
            // Racing cancels against the transfer: whatever wins, exactly one completion.
            for round in 0..<20 {
                let (racer, op) = downloader.record(origin.url("/c.png?\(round)"))
                if round % 2 == 0 { try await Task.sleep(for: .microseconds(round * 50)) }
                op.cancel()
                _ = await racer.result()
                #expect(await racer.completionCount(after: .milliseconds(5)) == 1)
                #expect(racer.progressAfterCompletion == 0)
            }
        }
    }
}

extension LoadRecorder {
    /// The first completion if there is one (no waiting).
    func result(now: Void) -> Result<ImageLoaderResult, WebImageError>? {
        completionCount > 0 ? firstCompletion : nil
    }

    @Test("loads through equal coders (same coderKey) share one download; coders without a key do not", arguments: DownloaderConfig.Transport.carriers)
    func coderKeyShares(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let gate = OriginGate()
            origin.route("/shared.png", .gated(gate, .fixture("png-rgb.png")))
            origin.route("/apart.png", .gated(gate, .fixture("png-rgb.png")))
            let keyed = ImageLoaderContext(coder: KeyedPNGCoder(key: "png"))
            let unkeyed = ImageLoaderContext(coder: KeyedPNGCoder(key: nil))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask { _ = try await downloader.loadImage(with: origin.url("/shared.png"), context: keyed) }
                    group.addTask { _ = try await downloader.loadImage(with: origin.url("/apart.png"), context: unkeyed) }
                }
                #expect(await eventually { origin.inFlightRequests == 4 })
                gate.open()
                try await group.waitForAll()
            }
            #expect(origin.requestCount("/shared.png") == 1)
            #expect(origin.requestCount("/apart.png") == 3)
        }
    }
}

/// PNG decoding under a chosen ``ImageCoder/coderKey``.
private struct KeyedPNGCoder: ImageCoder {
    let key: String?
    var coderKey: String? { key }
    func canDecode(_ data: Data) -> Bool { PNGCoder().canDecode(data) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try PNGCoder().decode(data, options: options) }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "decode only")
    }
}
