import Foundation
import Testing
@testable import WebImage

@Suite("ImageCodersManager")
struct ImageCodersManagerTests {
    /// A coder that claims JPEGs, to show that the last added coder wins.
    struct ClaimingCoder: ImageCoder {
        func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }
        func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
            Image(bitmap: Fixtures.solid(RGBA(r: 1, g: 2, b: 3), width: 1, height: 1))
        }
        func canEncode(to format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { Data() }
    }

    @Test func picksTheCoderByContentNotByName() throws {
        let manager = ImageCodersManager()
        #expect(try manager.decode(try Fixtures.data("jpeg-baseline.jpg")).format == .jpeg)
        #expect(try manager.decode(try Fixtures.data("png-rgba.png")).format == .png)
    }

    @Test func theLastAddedCoderWins() throws {
        let manager = ImageCodersManager()
        manager.addCoder(ClaimingCoder())
        #expect(try manager.decode(try Fixtures.data("jpeg-baseline.jpg")).width == 1)
        manager.removeCoder(ClaimingCoder())
        #expect(try manager.decode(try Fixtures.data("jpeg-baseline.jpg")).width == 48)
    }

    @Test func unknownAndEmptyDataAreTypedErrors() {
        let manager = ImageCodersManager()
        #expect(throws: ImageCoderError.emptyData) { try manager.decode(Data()) }
        #expect(throws: ImageCoderError.unsupportedFormat(.undefined)) { try manager.decode(Data("<html>".utf8)) }
        #expect(throws: ImageCoderError.unsupportedFormat(.tiff)) { try manager.decode(Data("II*\u{0}".utf8) + Data(count: 16)) }
        // A HEIC brand with nothing behind it: the HEIF coder takes it and says what is wrong.
        #expect(throws: ImageCoderError.self) {
            try manager.decode(Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 16)))
        }
    }

    @Test func encodesToTheAskedFormat() throws {
        let image = Image(bitmap: Fixtures.testCard(width: 16, height: 16))
        #expect(ImageFormat.detect(try ImageCodersManager.shared.encode(image, as: .png)) == .png)
        #expect(ImageFormat.detect(try ImageCodersManager.shared.encode(image, as: .jpeg)) == .jpeg)
        #expect(throws: ImageCoderError.self) { try ImageCodersManager.shared.encode(image, as: .heic) }
    }

    @Test func incrementalDecoderSniffsThenDelegates() throws {
        let data = try Fixtures.data("png-interlaced.png")
        let decoder = ImageCodersManager.shared.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(8), isFinal: false)
        #expect(try decoder.decodedImage() == nil)
        decoder.update(data, isFinal: true)
        #expect(try decoder.decodedImage()?.format == .png)
    }
}
