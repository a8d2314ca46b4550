import Foundation
import Testing
@testable import WebImage

@Suite("JXLCoder", .onOwnThreads)
struct JXLCoderTests {
    let coder = JXLCoder()

    @Test("lossy (XYB) decodes to the pixels libjxl's own djxl writes, in sRGB; the manager recognises the bytes")
    func lossyMatchesDJXL() throws {
        let data = try Fixtures.data("jxl-lossy.jxl")
        let image = try ImageCodersManager.shared.decode(data)
        let expected = try ImageCodersManager.shared.decode(try Fixtures.data("jxl-lossy-expected.png"))
        #expect(image.format == .jpegXL && image.pixelSize == PixelSize(width: 48, height: 32) && !image.hasAlpha)
        #expect(image.bitmap.difference(from: expected.bitmap).max <= 1)
        #expect(image.originalData == data)
    }

    @Test("lossless files give back the PNG they came from: alpha exactly, 16-bit rounded to 8, greyscale as RGB",
          arguments: [("jxl-lossless-alpha.jxl", "png-rgba.png", 0), ("jxl-16bit.jxl", "png-16bit.png", 1), ("jxl-gray.jxl", "png-gray.png", 0)])
    func lossless(jxl: String, png: String, tolerance: Int) throws {
        let image = try coder.decode(try Fixtures.data(jxl), options: .default)
        let reference = try ImageCodersManager.shared.decode(try Fixtures.data(png))
        #expect(image.pixelSize == reference.pixelSize && image.hasAlpha == reference.hasAlpha)
        #expect(image.bitmap.difference(from: reference.bitmap).max <= tolerance)
    }

    @Test("an animation: every frame equals the GIF it came from, durations and loop count from the codestream")
    func animation() throws {
        let data = try Fixtures.data("jxl-animated.jxl")
        let image = try coder.decode(data, options: .default)
        let gif = try GIFCoder().decode(try Fixtures.data("gif-pillow-animated.gif"), options: .default)
        #expect(image.frames.count == 3 && gif.frames.count == 3)
        for (frame, reference) in zip(image.frames, gif.frames) { #expect(frame.bitmap == reference.bitmap) }
        #expect(image.frames.map(\.duration).map { ($0 * 1000).rounded() } == [200, 10, 70], "exact: no GIF-era 11 ms floor")
        #expect(image.loopCount == 0)
        #expect(try coder.animationInfo(of: data) == AnimationInfo(frameCount: 3, loopCount: 0, canvasSize: PixelSize(width: 16, height: 12)))
        let first = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(first.frames.count == 1 && first.bitmap == gif.bitmap && first.originalData == nil)
    }

    @Test("orientation is reported, pixels stay as stored (as the JPEG the file was recompressed from)")
    func orientation() throws {
        let data = try Fixtures.data("jxl-orientation6.jxl")
        let image = try coder.decode(data, options: .default)
        let jpeg = try JPEGCoder().decode(try Fixtures.data("jpeg-orientation6.jpg"), options: .default)
        #expect(image.orientation == ImageOrientation(exifValue: 6) && image.orientation == jpeg.orientation)
        #expect(image.pixelSize == jpeg.pixelSize)
        #expect(image.bitmap.difference(from: jpeg.bitmap).max <= 3, "the same DCT coefficients, decoded by two libraries")
        let header = try ImageCodersManager.shared.header(of: data)
        #expect(header.format == .jpegXL && header.pixelSize == PixelSize(width: 48, height: 32) && header.orientation == ImageOrientation(exifValue: 6))
    }

    @Test("thumbnails fit the box and do not stand for the original bytes")
    func thumbnail() throws {
        let image = try coder.decode(try Fixtures.data("jxl-lossy.jxl"), options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24)))
        #expect(image.pixelSize == PixelSize(width: 24, height: 16))
        #expect(image.originalData == nil)
    }

    @Test("bad input is a typed error: empty, cut off anywhere, mangled, over the pixel limit or the animation budget")
    func badInput() throws {
        #expect(throws: ImageCoderError.emptyData) { try coder.decode(Data(), options: .default) }
        for name in ["jxl-lossy.jxl", "jxl-animated.jxl", "jxl-orientation6.jxl"] {
            let data = try Fixtures.data(name)
            for cut in [12, data.count / 3, data.count * 2 / 3, data.count - 1] {
                #expect(throws: ImageCoderError.truncated(.jpegXL), "\(name) cut at \(cut)") {
                    try coder.decode(Data(data.prefix(cut)), options: .default)
                }
                #expect(throws: ImageCoderError.truncated(.jpegXL), "\(name) cut at \(cut)") { try ImageIntegrity.check(Data(data.prefix(cut))) }
            }
            try ImageIntegrity.check(data)
        }
        var mangled = try Fixtures.data("jxl-lossy.jxl")
        for i in stride(from: 30, to: mangled.count, by: 5) { mangled[i] ^= 0x5A }
        #expect(throws: ImageCoderError.self) { try coder.decode(mangled, options: .default) }
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 1000)) {
            try coder.decode(try Fixtures.data("jxl-lossy.jxl"), options: ImageDecodeOptions(maxPixelCount: 1000))
        }
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 1000)) {
            try ImageIntegrity.check(try Fixtures.data("jxl-lossy.jxl"), maxPixelCount: 1000)
        }
        // 3 frames of 16x12 = 576 pixels of compositing; a 100-byte budget allows 8 × 25 pixels of work.
        #expect(throws: ImageCoderError.tooLarge(width: 16, height: 12, limit: 66)) {
            try coder.decode(try Fixtures.data("jxl-animated.jxl"), options: ImageDecodeOptions(maxAnimationBytes: 100))
        }
    }

    @Test("the structure check decodes with the caller's animation budget, not libjxl's default: through ImageIntegrity and the structure-check coder")
    func structureCheckKeepsTheBudget() throws {
        let animated = try Fixtures.data("jxl-animated.jxl")
        try ImageIntegrity.check(animated)
        #expect(throws: ImageCoderError.tooLarge(width: 16, height: 12, limit: 66)) {
            try ImageIntegrity.check(animated, maxAnimationBytes: 100)
        }
        #expect(throws: ImageCoderError.tooLarge(width: 16, height: 12, limit: 66)) {
            try StructureCheckCoder().decode(animated, options: ImageDecodeOptions(maxAnimationBytes: 100))
        }
    }
}
