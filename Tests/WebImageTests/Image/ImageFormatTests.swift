import Foundation
import Testing
@testable import WebImage

@Suite("ImageFormat.detect")
struct ImageFormatTests {
    private func bytes(_ values: [UInt8], padTo count: Int = 16) -> Data {
        Data(values + [UInt8](repeating: 0, count: max(0, count - values.count)))
    }

    @Test("magic bytes name the format", arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        (Array("GIF89a".utf8), .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), .webp),
        ([0x49, 0x49, 0x2A, 0x00], .tiff),
        ([0x4D, 0x4D, 0x00, 0x2A], .tiff),
        ([0, 0, 0, 0x18] + Array("ftypheic".utf8), .heic),
        ([0, 0, 0, 0x18] + Array("ftypheix".utf8), .heic),
        ([0, 0, 0, 0x18] + Array("ftypmif1".utf8), .heif),
        ([0, 0, 0, 0x18] + Array("ftypavif".utf8), .avif),
        (Array("BM".utf8) + [0x36, 0, 0, 0], .bmp),
        ([0x00, 0x00, 0x01, 0x00, 0x01, 0x00], .ico),
        (Array("%PDF-1.7".utf8), .pdf),
        ([0xFF, 0x0A, 0x00], .jpegXL),
        ([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jpegXL),
    ] as [([UInt8], ImageFormat)])
    func detects(prefix: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat.detect(bytes(prefix)) == expected)
    }

    @Test func svgIsDetectedFromItsText() {
        let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>"#
        #expect(ImageFormat.detect(Data(svg.utf8)) == .svg)
        #expect(ImageFormat.detect(Data("\u{FEFF}  <svg></svg>".utf8)) == .svg)
    }

    @Test("anything else is undefined", arguments: [
        Data(), Data([0xFF]), Data("<html><body>not found</body></html>".utf8),
        Data("RIFF\0\0\0\0WAVE".utf8), Data([0, 0, 0, 0x18] + Array("ftypisom".utf8)),
    ])
    func undefined(data: Data) {
        #expect(ImageFormat.detect(data) == .undefined)
    }

    @Test func namesAndTypes() {
        #expect(ImageFormat(name: "JPG") == .jpeg)
        #expect(ImageFormat(name: "webp") == .webp)
        #expect(ImageFormat(name: "undefined") == nil)
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
    }
}

@Suite("ImageScale")
struct ImageScaleTests {
    @Test("scale from @2x/@3x in a key", arguments: [
        ("https://example.com/a@2x.png", 2.0),
        ("https://example.com/a@3x.png?x=1", 3.0),
        ("https://example.com/a%402x.png", 2.0),
        ("file@3x.jpg", 3.0),
        ("/tmp/a%402x.png", 1.0),  // escaped form only counts in http(s) URLs
        ("https://example.com/a@2x", 1.0),  // no dot after the marker
        ("@2x.png", 1.0),  // shorter than the shortest real name
        ("https://example.com/plain.png", 1.0),
        ("https://example.com/été@3x.png", 3.0),  // bytes after non-ASCII ones
        ("https://example.com/a@3x.b@2x.png", 2.0),  // @2x is looked for first, as SD does
        ("abcd@2x.", 2.0),  // the marker at the very end
        ("https://example.com/a@2y.png", 1.0),
        ("https://example.com/a%403x.png@", 3.0),  // escaped 3x; a marker cut off at the end
        ("https://example.com/a%4", 1.0),
    ])
    func scale(key: String, expected: Double) {
        #expect(ImageScale.scaleFactor(forKey: key) == expected)
    }

    @Test func nilKeyIsOne() {
        #expect(ImageScale.scaleFactor(forKey: nil) == 1)
    }
}
