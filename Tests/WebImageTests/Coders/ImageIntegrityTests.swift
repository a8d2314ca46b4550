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

    @Test("a file cut anywhere fails (a GIF cut after a whole frame passes only if it decodes)", arguments: images)
    func truncatedFilesFail(_ name: String) throws {
        let data = try Fixtures.data(name)
        // JPEG's last two bytes are the end-of-image marker; a cut inside GIF's one-byte
        // trailer leaves nothing else to cut.
        let cuts = Set(stride(from: 1, to: data.count - 2, by: max(1, data.count / 23)).map { $0 } + [data.count - 2])
        for cut in cuts.sorted() {
            let prefix = data.prefix(cut)
            if name.hasSuffix(".gif"), (try? ImageCodersManager.shared.decode(prefix, options: .default)) != nil { continue }
            #expect(throws: ImageCoderError.self, "\(name) cut to \(cut) of \(data.count) bytes") {
                try ImageIntegrity.check(prefix)
            }
        }
    }

    @Test("a PNG header declaring 4 billion × 4 billion pixels is refused, not an arithmetic trap")
    func pngSizeOutOfRange() {
        var ihdr = Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        ihdr += Data([8, 6, 0, 0, 0])
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + FaultyImages.chunk("IHDR", ihdr)
            + FaultyImages.chunk("IEND", Data())
        #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(png) }
    }

    @Test("what libpng and libjpeg only warn about passes: a bad CRC in an ancillary chunk, stray bytes before a marker")
    func decoderWarningsPass() throws {
        // A tEXt chunk with a wrong CRC, after IHDR.
        let png = try Fixtures.data("png-rgb.png")
        let text = Data([0, 0, 0, 4]) + Data("tEXta=bc".utf8) + Data([1, 2, 3, 4])
        let withText = png.prefix(33) + text + png.dropFirst(33)
        #expect(throws: Never.self) { try ImageIntegrity.check(withText) }
        #expect(throws: Never.self) { try ImageCodersManager.shared.decode(withText, options: .default) }

        // Three stray bytes between the first two JPEG segments.
        let jpeg = try Fixtures.data("jpeg-baseline.jpg")
        let appLength = Int(jpeg[4]) << 8 | Int(jpeg[5])
        let split = 4 + appLength
        let stray = jpeg.prefix(split) + Data([0x00, 0x11, 0x22]) + jpeg.dropFirst(split)
        #expect(throws: Never.self) { try ImageIntegrity.check(stray) }
        #expect(throws: Never.self) { try ImageCodersManager.shared.decode(stray, options: .default) }
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
