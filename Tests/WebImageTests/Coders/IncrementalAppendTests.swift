import Foundation
import Testing
@testable import WebImage

@Suite("Incremental decoders fed only the new bytes")
struct IncrementalAppendTests {
    /// The partial images of `data` cut into `pieces`, fed whole-so-far (`update`) or new-bytes-only (`append`).
    private func partials(_ data: Data, pieces: Int, append: Bool) throws -> [Bitmap?] {
        let coder = try #require(ImageCodersManager.shared.allCoders.first { $0.canDecode(data) } as? any ProgressiveImageCoder)
        let decoder = coder.makeIncrementalDecoder(options: .default)
        let buffering = try #require(decoder as? any ReceivedBytesBuffering)
        let step = max(1, data.count / pieces)
        var results: [Bitmap?] = []
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + step)
            if append {
                buffering.append(data.subdata(in: offset..<end), isFinal: end == data.count)
            } else {
                decoder.update(data.prefix(end), isFinal: end == data.count)
            }
            results.append((try? decoder.decodedImage())??.bitmap)
            offset = end
        }
        return results
    }

    @Test("append gives the same partial and final images as update with everything so far",
          arguments: ["jpeg-progressive.jpg", "png-interlaced.png", "webp-lossy.webp", "webp-alpha.webp"])
    func appendMatchesUpdate(fixture: String) throws {
        let data = try Fixtures.data(fixture)
        let appended = try partials(data, pieces: 7, append: true)
        let updated = try partials(data, pieces: 7, append: false)
        #expect(appended == updated)
        #expect(appended.last.flatMap { $0 } != nil, "the final image")
    }
}
