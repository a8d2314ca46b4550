import Foundation
import Testing
@testable import WebImage

/// The shared smooth test card (no checker: AV1 keeps gradients well, so a lossy round trip stays close).
private func gradient(width: Int, height: Int, alpha: Bool) -> Bitmap {
    Fixtures.testCard(width: width, height: height, alpha: alpha, checker: false)
}

@Suite("AVIFCoder", .onOwnThreads)
struct AVIFCoderTests {
    let coder = AVIFCoder()

    @Test("a lossy round trip keeps size and pixels close; the manager recognises the bytes")
    func lossyRoundTrip() throws {
        let source = gradient(width: 96, height: 64, alpha: false)
        let data = try coder.encode(Image(bitmap: source), as: .avif, options: ImageEncodeOptions(quality: 0.8))
        #expect(ImageFormat.detect(data) == .avif)
        let image = try ImageCodersManager.shared.decode(data)
        #expect(image.format == .avif && image.pixelSize == source.size && !image.hasAlpha)
        #expect(image.bitmap.difference(from: source).mean < 3)
        #expect(image.originalData == data)
    }

    @Test("alpha is kept as its own plane")
    func alpha() throws {
        let source = gradient(width: 64, height: 48, alpha: true)
        let image = try coder.decode(try coder.encode(Image(bitmap: source, hasAlpha: true), as: .avif, options: ImageEncodeOptions(quality: 0.9)), options: .default)
        #expect(image.hasAlpha)
        #expect(image.bitmap.difference(from: source).mean < 3)
    }

    @Test("lossless: 4:4:4 with identity coefficients gives the same bytes back")
    func lossless() throws {
        let source = gradient(width: 40, height: 30, alpha: true)
        let data = try coder.encode(Image(bitmap: source, hasAlpha: true), as: .avif, options: ImageEncodeOptions(lossless: true))
        #expect(try coder.decode(data, options: .default).bitmap == source)
    }

    @Test("the header reads size and frames without decoding; thumbnails fit the box")
    func headerAndThumbnail() throws {
        let data = try coder.encode(Image(bitmap: gradient(width: 120, height: 80, alpha: false)), as: .avif, options: .default)
        let header = try ImageCodersManager.shared.header(of: data)
        #expect(header.format == .avif && header.pixelSize == PixelSize(width: 120, height: 80) && header.frameCount == 1)
        let thumbnail = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30)))
        #expect(thumbnail.pixelSize == PixelSize(width: 30, height: 20))
        #expect(thumbnail.originalData == nil, "a thumbnail does not stand for the original bytes")
    }

    @Test("bad input is a typed error: empty, cut off, mangled, over the pixel limit")
    func badInput() throws {
        let data = try coder.encode(Image(bitmap: gradient(width: 64, height: 64, alpha: false)), as: .avif, options: .default)
        #expect(throws: ImageCoderError.emptyData) { try coder.decode(Data(), options: .default) }
        #expect(throws: ImageCoderError.self) { try coder.decode(Data(data.prefix(data.count / 2)), options: .default) }
        var mangled = data
        for i in stride(from: 40, to: mangled.count, by: 7) { mangled[i] ^= 0x5A }
        #expect(throws: ImageCoderError.self) { try coder.decode(mangled, options: .default) }
        #expect(throws: ImageCoderError.tooLarge(width: 64, height: 64, limit: 1000)) {
            try coder.decode(data, options: ImageDecodeOptions(maxPixelCount: 1000))
        }
    }

    @Test("avifenc's files: 8-bit, 10-bit with alpha and 12-bit decode to RGBA8 close to the PNGs they came from",
          arguments: [("avif-rgb.avif", "png-rgb.png"), ("avif-10bit-alpha.avif", "png-rgba.png"), ("avif-12bit.avif", "png-rgb.png")])
    func avifencFiles(avif: String, png: String) throws {
        let image = try coder.decode(try Fixtures.data(avif), options: .default)
        let reference = try ImageCodersManager.shared.decode(try Fixtures.data(png))
        #expect(image.pixelSize == reference.pixelSize)
        #expect(image.hasAlpha == reference.hasAlpha)
        #expect(image.bitmap.difference(from: reference.bitmap).mean < 12, "lossy at avifenc's defaults, with an 8-px checker")
    }

    @Test("an image sequence: every frame with its duration (timescale 10: 0.1, 0.3, 0.2 s), forever; first frame only on request")
    func sequence() throws {
        let data = try Fixtures.data("avif-sequence.avif")
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.map(\.duration) == [0.1, 0.3, 0.2])
        #expect(image.loopCount == 0 && image.isAnimated)
        #expect(image.frames[0].bitmap != image.frames[1].bitmap)
        #expect(try coder.animationInfo(of: data) == AnimationInfo(frameCount: 3, loopCount: 0, canvasSize: PixelSize(width: 48, height: 32)))
        let first = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(first.frames.count == 1 && first.originalData == nil)
        #expect(throws: ImageCoderError.self) { try coder.decode(data, options: ImageDecodeOptions(maxAnimationBytes: 1000)) }
        try ImageIntegrity.check(data)
    }

    @Test("irot 3 (three quarter turns anti-clockwise) reads as EXIF 6; the pixels stay as stored")
    func irot() throws {
        let image = try coder.decode(try Fixtures.data("avif-irot3.avif"), options: .default)
        #expect(image.orientation == .right && image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(try coder.header(of: try Fixtures.data("avif-irot3.avif")).uprightSize == PixelSize(width: 32, height: 48))
    }

    @Test("irot/imir read as the EXIF orientation the other coders report (rotation first, then the mirror)",
          arguments: [(0, nil, 1), (1, nil, 8), (2, nil, 3), (3, nil, 6), (0, .leftRight, 2), (0, .topBottom, 4),
                      (3, .leftRight, 5), (1, .leftRight, 7)] as [(Int, ImageOrientation.Mirror?, Int)])
    func orientations(turnsAntiClockwise: Int, mirror: ImageOrientation.Mirror?, exif: Int) {
        #expect(ImageOrientation(quarterTurnsClockwise: (4 - turnsAntiClockwise) % 4, then: mirror).exifValue == exif)
    }
}

@Suite("ImageIntegrity: AVIF")
struct AVIFIntegrityTests {
    @Test("a whole AVIF passes the structure check; cut anywhere inside its frame data it does not; the limit applies")
    func structure() throws {
        let data = try AVIFCoder().encode(Image(bitmap: gradient(width: 64, height: 48, alpha: true), hasAlpha: true),
                                          as: .avif, options: ImageEncodeOptions(quality: 0.7))
        try ImageIntegrity.check(data)
        for cut in [data.count - 1, data.count - 20, data.count / 2] {
            #expect(throws: ImageCoderError.self) { try ImageIntegrity.check(Data(data.prefix(cut))) }
        }
        #expect(throws: ImageCoderError.tooLarge(width: 64, height: 48, limit: 100)) { try ImageIntegrity.check(data, maxPixelCount: 100) }
        _ = try StructureCheckCoder().decode(data, options: .default)
    }
}
