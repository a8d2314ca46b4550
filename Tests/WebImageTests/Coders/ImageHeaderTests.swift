import Foundation
import Testing
@testable import WebImage

@Suite("ImageHeader")
struct ImageHeaderTests {
    let coders = ImageCodersManager()

    @Test("every format's header agrees with its full decode: stored size, orientation, frame count",
          arguments: ["jpeg-baseline.jpg", "jpeg-orientation6.jpg", "jpeg-progressive.jpg", "jpeg-cmyk.jpg",
                      "png-rgba.png", "png-interlaced.png", "apng-pillow-basic.png", "gif-pillow-animated.gif",
                      "webp-lossy.webp", "webp-animated.webp", "webp-orientation6.webp"])
    func agreesWithTheDecode(fixture: String) throws {
        let data = try Fixtures.data(fixture)
        let header = try coders.header(of: data)
        let image = try coders.decode(data)
        #expect(header.format == image.format)
        #expect(header.pixelSize == image.pixelSize)
        #expect(header.orientation == image.orientation)
        #expect(header.frameCount == image.frames.count)
    }

    @Test("a quarter-turn orientation swaps the upright size")
    func uprightSize() throws {
        let header = try coders.header(of: try Fixtures.data("jpeg-orientation6.jpg"))
        #expect(header.orientation == .right)
        #expect(header.uprightSize == PixelSize(width: header.pixelSize.height, height: header.pixelSize.width))
    }

    @Test("no pixel limit applies to a header, and bytes that are no image are a typed error")
    func limitsAndErrors() throws {
        let data = try Fixtures.data("jpeg-baseline.jpg")
        #expect(try coders.header(of: data).pixelSize.pixelCount > 1)
        #expect(throws: ImageCoderError.self) { try coders.header(of: Data(data.prefix(40))) }
        #expect(throws: ImageCoderError.unsupportedFormat(.undefined)) { try coders.header(of: Data("<html>".utf8)) }
        #expect(throws: ImageCoderError.emptyData) { try JPEGCoder().header(of: Data()) }
    }

    @Test("the structure-check coder answers a placeholder but the real header")
    func structureCheckCoder() throws {
        let data = try Fixtures.data("png-rgba.png")
        let coder = StructureCheckCoder()
        #expect(try coder.decode(data, options: .default).pixelSize == PixelSize(width: 1, height: 1))
        #expect(try coder.header(of: data) == coders.header(of: data))
    }
}
