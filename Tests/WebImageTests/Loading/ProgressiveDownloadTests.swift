import Foundation
import Testing
@testable import WebImage

@Suite("Progressive downloads")
struct ProgressiveDownloadTests {
    @Test("progressiveLoad delivers growing partial images while bytes arrive, then the full image", arguments: DownloaderConfig.Transport.carriers)
    func partialImages(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let data = Fixtures.largeProgressiveJPEG
            // Half a second of drip, stretched with the run's time scale: under ThreadSanitizer a
            // partial decode outlasted the unstretched drip, and only one partial image came.
            let rate = Int(Double(data.count * 2) / TestTiming.scale)
            origin.route("/prog.jpg", .drip(.bytes(data), bytesPerSecond: rate, chunkSize: data.count / 16, contentType: "image/jpeg"))
            let (recorder, _) = downloader.record(origin.url("/prog.jpg"), options: .progressiveLoad)
            let result = try #require(await recorder.value())
            let partials = recorder.progressValues.filter { $0.partialImage != nil }
            #expect(partials.count >= 2, "only \(partials.count) partial images")
            #expect(partials.allSatisfy { $0.partialImage?.isIncremental == true })
            #expect(partials.allSatisfy { $0.partialImage?.pixelSize == PixelSize(width: 320, height: 240) })
            let sizes = partials.map(\.receivedSize)
            #expect(sizes == sizes.sorted())
            #expect((sizes.last ?? 0) < Int64(data.count) || partials.count > 1)
            #expect(!result.image.isIncremental)
            let full = try ImageCodersManager.shared.decode(data)
            #expect(result.image.bitmap == full.bitmap)
            #expect(recorder.progressAfterCompletion == 0)
        }
    }

    @Test("without progressiveLoad no partial images are made", arguments: DownloaderConfig.Transport.carriers)
    func noPartialImages(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let data = Fixtures.largeProgressiveJPEG
            origin.route("/prog.jpg", .drip(.bytes(data), bytesPerSecond: data.count * 8, chunkSize: data.count / 8, contentType: "image/jpeg"))
            let (recorder, _) = downloader.record(origin.url("/prog.jpg"))
            _ = try #require(await recorder.value())
            #expect(recorder.progressValues.allSatisfy { $0.partialImage == nil })
        }
    }
}
