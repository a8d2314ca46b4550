import Foundation
import Testing
@testable import WebImage

@Suite("HEIFCoder", .onOwnThreads)
struct HEIFCoderTests {
    let coder = HEIFCoder()

    @Test("heif-enc's files (8-bit, alpha, 10-bit) decode to RGBA8 close to the PNGs they came from",
          arguments: [("heic-rgb.heic", "png-rgb.png"), ("heic-alpha.heic", "png-rgba.png"), ("heic-10bit.heic", "png-16bit.png")])
    func heifEncFiles(heic: String, png: String) throws {
        let data = try Fixtures.data(heic)
        #expect(ImageFormat.detect(data) == .heic)
        let manager = ImageCodersManager()
        manager.addCoder(HEIFCoder())  // opt-in
        let image = try manager.decode(data)
        let reference = try ImageCodersManager.shared.decode(try Fixtures.data(png))
        #expect(image.format == .heic && image.pixelSize == reference.pixelSize)
        #expect(image.hasAlpha == reference.hasAlpha)
        #expect(image.bitmap.difference(from: reference.bitmap).mean < 12, "lossy HEVC at q90 with an 8-px checker")
        let header = try manager.header(of: data)
        #expect(header.format == .heic && header.pixelSize == reference.pixelSize && header.orientation == .up)
    }

    @Test("a thumbnail decode fits the box; the embedded thumbnail is used when it covers it")
    func thumbnails() throws {
        let data = try Fixtures.data("heic-thumbnail.heic")
        let small = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 12, height: 12)))
        #expect(small.pixelSize == PixelSize(width: 12, height: 8) && small.originalData == nil)
        let full = try coder.decode(data, options: .default)
        let reference = full.bitmap.resampled(to: PixelSize(width: 12, height: 8))
        #expect(small.bitmap.difference(from: reference).mean < 16, "from the 24-px embedded thumbnail, not the 48-px image")
    }

    @Test("bad input is a typed error: empty, cut off, mangled, over the pixel limit")
    func badInput() throws {
        let data = try Fixtures.data("heic-rgb.heic")
        #expect(throws: ImageCoderError.emptyData) { try coder.decode(Data(), options: .default) }
        #expect(throws: ImageCoderError.self) { try coder.decode(Data(data.prefix(data.count / 2)), options: .default) }
        var mangled = data
        for i in stride(from: 60, to: mangled.count, by: 5) { mangled[i] ^= 0x5A }
        #expect(throws: ImageCoderError.self) { try coder.decode(mangled, options: .default) }
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 1000)) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 1000))
        }
        #expect(!coder.canEncode(to: .heic))
    }

    @Test("opt-in: the default coders do not read HEIC (see HEIFCoder's documentation for why)")
    func optIn() throws {
        let data = try Fixtures.data("heic-rgb.heic")
        #expect(throws: ImageCoderError.unsupportedFormat(.heic)) { try ImageCodersManager().decode(data) }
        #expect(throws: ImageCoderError.unsupportedFormat(.heic)) { try ImageIntegrity.check(data) }
    }
}
