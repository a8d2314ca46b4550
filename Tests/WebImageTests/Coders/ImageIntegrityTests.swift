import Foundation
import Testing
@testable import WebImage

/// The structural check that stands in for a decode where only the bytes are kept.
@Suite("ImageIntegrity: structure without pixels")
struct ImageIntegrityTests {
    static let images: [String] = try! FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)
        .filter { name in
            [".jpg", ".png", ".gif", ".webp"].contains { name.hasSuffix($0) } && !name.hasSuffix("-expected.png")
        }
        .sorted()

    @Test("every fixture image passes", arguments: images)
    func wholeFilesPass(_ name: String) throws {
        let data = try Fixtures.data(name)
        #expect(throws: Never.self) { try ImageIntegrity.check(data) }
        // …and decodes, so the check accepts nothing a decode would refuse among them.
        #expect(throws: Never.self) { try ImageCodersManager.shared.decode(data, options: .default) }
    }

    @Test("a file cut anywhere fails", arguments: images)
    func truncatedFilesFail(_ name: String) throws {
        let data = try Fixtures.data(name)
        // JPEG's last two bytes are the end-of-image marker; a cut inside GIF's one-byte
        // trailer leaves nothing else to cut.
        let cuts = Set(stride(from: 1, to: data.count - 2, by: max(1, data.count / 23)).map { $0 } + [data.count - 2])
        for cut in cuts.sorted() {
            #expect(throws: ImageCoderError.self, "\(name) cut to \(cut) of \(data.count) bytes") {
                try ImageIntegrity.check(data.prefix(cut))
            }
        }
    }

    @Test("one flipped byte inside a PNG chunk fails its CRC")
    func pngBitFlip() throws {
        var data = try Fixtures.data("png-rgb.png")
        data[data.count / 2] ^= 0x01
        #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(data) }
    }

    @Test("the fault matrix's corrupt bodies fail, the decompression bomb is too large")
    func faultyBodies() {
        for body in [FaultyImages.corruptJPEG, FaultyImages.corruptPNG, FaultyImages.corruptWebP] {
            #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(body) }
        }
        #expect(throws: ImageCoderError.tooLarge(width: 60_000, height: 60_000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try ImageIntegrity.check(FaultyImages.pngBomb)
        }
    }

    @Test("bytes after JPEG's end-of-image marker are ignored, as decoders do")
    func jpegTrailingBytes() throws {
        let data = try Fixtures.data("jpeg-baseline.jpg") + Data(repeating: 0x42, count: 100)
        #expect(throws: Never.self) { try ImageIntegrity.check(data) }
    }

    @Test("empty data, a web page and unsupported formats are refused")
    func notImages() {
        #expect(throws: ImageCoderError.emptyData) { try ImageIntegrity.check(Data()) }
        #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(Data("<html><body>hi</body></html>".utf8)) }
        #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(Data("BM".utf8) + Data(count: 60)) }
    }

    @Test("a small pixel limit applies to the declared size")
    func pixelLimit() throws {
        let data = try Fixtures.data("jpeg-baseline.jpg")
        #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(data, maxPixelCount: 10) }
    }
}
