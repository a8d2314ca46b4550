import Foundation
import Testing
@testable import WebImage

/// Animated PNG through ``PNGCoder``.
///
/// `apng-pillow-*.png` were written by Pillow 12 (`save_all=True`):
/// - basic: 16×12 RGBA red, green, blue; `duration=[100, 5, 250]`, `loop=2`
/// - hidden-default: grey default image outside the animation (`default_image=True`), then
///   yellow and cyan; `loop=0`
/// - ops: red; a 4×4 blue square of alpha 128 at (2,2) with blend over and dispose background;
///   a 4×4 green square at (10,6), dispose previous; a white pixel at (0,0). Pillow crops each
///   frame to what changed, so the frames have real offsets.
/// - palette: colour type 3 with PLTE and tRNS (index 0 transparent red, 1 blue, 2 green);
///   frame 0 is 0|1 by halves, frame 1 is 1|2; `duration=[100, 200]`, `loop=1`
/// Exact dispose and blend cases are built here from frames the PNG encoder writes.
@Suite("APNG")
struct APNGTests {
    let coder = PNGCoder()

    // MARK: Frames, timing, looping

    @Test func decodesEveryFrameWithItsDelayAndLoopCount() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")
        let image = try coder.decode(data)
        #expect(image.format == .png)
        #expect(image.frames.count == 3)
        #expect(image.loopCount == 2)
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.25], "5 ms is under 11 ms: played at 100 ms")
        #expect(image.frames.map(\.bitmap) == [RGBA.red, .green, .blue].map { Fixtures.solid($0, width: 16, height: 12) })
        #expect(image.originalData == data)
        #expect(image.hasAlpha, "colour type 6 declares alpha")
        #expect(try coder.animationInfo(of: data) == AnimationInfo(
            frameCount: 3, loopCount: 2, canvasSize: PixelSize(width: 16, height: 12)))
    }

    @Test func aDefaultImageOutsideTheAnimationIsNotAFrame() throws {
        let data = try Fixtures.data("apng-pillow-hidden-default.png")
        let image = try coder.decode(data)
        #expect(image.loopCount == 0, "num_plays 0 is forever")
        #expect(image.frames.map(\.bitmap) == [
            Fixtures.solid(RGBA(r: 255, g: 255, b: 0), width: 16, height: 12),
            Fixtures.solid(RGBA(r: 0, g: 255, b: 255), width: 16, height: 12),
        ])
        #expect(try coder.animationInfo(of: data).frameCount == 2)
        // decodeFirstFrameOnly skips the animation: the poster is the default image.
        let poster = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(poster.frames.count == 1)
        #expect(poster.bitmap == Fixtures.solid(RGBA(r: 128, g: 128, b: 128), width: 16, height: 12))
    }

    @Test func pillowsDisposeAndBlendOperations() throws {
        let frames = try coder.decode(try Fixtures.data("apng-pillow-ops.png")).frames.map(\.bitmap)
        #expect(frames.count == 4)
        #expect(frames[0] == Fixtures.solid(.red, width: 16, height: 12))
        // Blue at alpha 128 over opaque red. (Pillow's own reader gives alpha 191 here: it pastes
        // with a mask instead of compositing "over"; the APNG spec's formula keeps it opaque.)
        #expect(frames[1][3, 3] == RGBA(r: 127, g: 0, b: 128, a: 255))
        #expect(frames[1][1, 1] == .red && frames[1][6, 6] == .red)
        // The square was disposed to background; green is drawn at (10,6).
        #expect(frames[2][3, 3] == .clear)
        #expect(frames[2][11, 7] == .green)
        // Green was disposed to previous: back to red with the hole; white at the corner.
        #expect(frames[3][0, 0] == RGBA(r: 255, g: 255, b: 255))
        #expect(frames[3][3, 3] == .clear)
        #expect(frames[3][11, 7] == .red)
    }

    @Test func paletteAndTransparencyChunksApplyToEveryFrame() throws {
        let image = try coder.decode(try Fixtures.data("apng-pillow-palette.png"))
        #expect(image.loopCount == 1)
        #expect(image.frames.map(\.duration) == [0.1, 0.2])
        #expect(image.hasAlpha)
        #expect(image.frames[0].bitmap[0, 0].a == 0, "tRNS: index 0 is transparent")
        #expect(image.frames[0].bitmap[15, 11] == .blue)
        #expect(image.frames[1].bitmap[0, 0] == .blue)
        #expect(image.frames[1].bitmap[15, 11] == .green)
    }

    @Test("delay is num/den seconds; den 0 means 100; under 11 ms plays at 100 ms", arguments: [
        (UInt16(5), UInt16(0), 0.05), (1, 1000, 0.1), (0, 0, 0.1), (3, 4, 0.75), (11, 1000, 0.011),
    ])
    func delays(numerator: UInt16, denominator: UInt16, seconds: Double) throws {
        let frame = Fixtures.solid(.red, width: 2, height: 2)
        let data = try APNGFixture.make(width: 2, height: 2, frames: [
            APNGFixture.Frame(frame, delay: (numerator, denominator)), APNGFixture.Frame(frame, delay: (numerator, denominator)),
        ])
        #expect(try coder.decode(data).frames.map(\.duration) == [seconds, seconds])
    }

    // MARK: Dispose and blend, exactly

    /// 8×8: opaque red; a 4×4 green square at (2,2) disposed to background; a 2×2 blue at (0,0)
    /// disposed to previous; a yellow pixel at (7,7).
    @Test func disposeOperations() throws {
        let data = try APNGFixture.make(width: 8, height: 8, frames: [
            APNGFixture.Frame(Fixtures.solid(.red, width: 8, height: 8)),
            APNGFixture.Frame(Fixtures.solid(.green, width: 4, height: 4), x: 2, y: 2, dispose: .background),
            APNGFixture.Frame(Fixtures.solid(.blue, width: 2, height: 2), dispose: .previous),
            APNGFixture.Frame(Fixtures.solid(.yellow, width: 1, height: 1), x: 7, y: 7),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[1][2, 2] == .green && frames[1][1, 1] == .red)
        #expect(frames[2][3, 3] == .clear, "the green square was cleared")
        #expect(frames[2][0, 0] == .blue && frames[2][6, 6] == .red)
        #expect(frames[3][0, 0] == .red, "blue was undone")
        #expect(frames[3][3, 3] == .clear && frames[3][7, 7] == .yellow)
    }

    @Test func disposePreviousOnTheFirstFrameClearsIt() throws {
        let data = try APNGFixture.make(width: 4, height: 4, frames: [
            APNGFixture.Frame(Fixtures.solid(.red, width: 4, height: 4), dispose: .previous),
            APNGFixture.Frame(Fixtures.solid(.green, width: 1, height: 1), x: 3, y: 3),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[0][0, 0] == .red)
        #expect(frames[1][0, 0] == .clear && frames[1][3, 3] == .green)
    }

    @Test func blendSourceReplacesAndBlendOverComposites() throws {
        let halfRed = Fixtures.solid(RGBA(r: 255, g: 0, b: 0, a: 128), width: 4, height: 4)
        let halfBlue = Fixtures.solid(RGBA(r: 0, g: 0, b: 255, a: 128), width: 2, height: 2)
        let data = try APNGFixture.make(width: 4, height: 4, frames: [
            APNGFixture.Frame(halfRed),
            APNGFixture.Frame(halfBlue, blend: .over),
            APNGFixture.Frame(halfBlue, x: 2, y: 2, blend: .source),
            APNGFixture.Frame(Fixtures.solid(.clear, width: 1, height: 1), blend: .over),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        // Over: α = .502 + .502 × .498 = .752 (192); red = 255 × .502 × .498 / .752 (85).
        #expect(frames[1][0, 0] == RGBA(r: 85, g: 0, b: 170, a: 192))
        #expect(frames[1][3, 3] == RGBA(r: 255, g: 0, b: 0, a: 128))
        #expect(frames[2][2, 2] == RGBA(r: 0, g: 0, b: 255, a: 128), "source replaces, alpha included")
        #expect(frames[2][0, 0] == RGBA(r: 85, g: 0, b: 170, a: 192))
        #expect(frames[3] == frames[2], "a clear pixel blended over changes nothing")
        #expect(Image(frames: try coder.decode(data).frames).cost == 3 * 4 * 4 * 4, "and shares the buffer")
    }

    // MARK: Options and limits

    @Test func thumbnailsResampleEveryFrame() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")
        let image = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 8, height: 6) })
        #expect(image.frames[2].bitmap[4, 3] == .blue)
        #expect(image.originalData == nil)
    }

    @Test func scaleDownLimitCountsEveryFrame() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")
        let image = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 3 * 8 * 6 * 4))
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 8, height: 6) })
    }

    @Test func decodeFirstFrameOnlyGivesTheDefaultImage() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")
        let image = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.bitmap == Fixtures.solid(.red, width: 16, height: 12))
    }

    @Test func animationsOverTheByteBudgetAreScaledDownNotRefused() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")  // 3 frames of 16×12
        let budget = 16 * 12 * 4 * 2
        let image = try coder.decode(data, options: ImageDecodeOptions(maxAnimationBytes: budget))
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.width < 16 && $0.bitmap.size.pixelCount * 4 * 3 <= budget })
        #expect(image.originalData == nil)
    }

    @Test func theCanvasIsBoundByThePixelLimitBeforeAnyFrameIsRead() throws {
        #expect(throws: ImageCoderError.tooLarge(width: 16, height: 12, limit: 100)) {
            try coder.decode(try Fixtures.data("apng-pillow-basic.png"), options: ImageDecodeOptions(maxPixelCount: 100))
        }
        // A 50,000 × 50,000 canvas is refused from IHDR before anything is decoded.
        var bomb = try APNGFixture.make(width: 2, height: 2, frames: [APNGFixture.Frame(Fixtures.solid(.red, width: 2, height: 2))])
        APNGFixture.rewriteIHDR(in: &bomb, width: 50_000, height: 50_000)
        #expect(throws: ImageCoderError.tooLarge(width: 50_000, height: 50_000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(bomb)
        }
    }

    // MARK: Malformed files

    @Test("an invalid acTL falls back to the still image", arguments: ["zero frames", "bad CRC", "short", "after IDAT"])
    func invalidAnimationControl(problem: String) throws {
        let frames = [
            APNGFixture.Frame(Fixtures.solid(.red, width: 2, height: 2)), APNGFixture.Frame(Fixtures.solid(.green, width: 2, height: 2)),
        ]
        let data = switch problem {
        case "zero frames": try APNGFixture.make(width: 2, height: 2, frames: frames, declaredFrames: 0)
        case "bad CRC": try APNGFixture.make(width: 2, height: 2, frames: frames, corruptAnimationControlCRC: true)
        case "short": try APNGFixture.make(width: 2, height: 2, frames: frames, animationControlLength: 4)
        default: try APNGFixture.make(width: 2, height: 2, frames: frames, animationControlAfterImageData: true)
        }
        let image = try coder.decode(data)
        #expect(image.frames.count == 1)
        #expect(image.bitmap == Fixtures.solid(.red, width: 2, height: 2))
        #expect(try coder.animationInfo(of: data).frameCount == 1)
    }

    @Test func framesPastTheDeclaredCountAreIgnored() throws {
        let data = try APNGFixture.make(width: 2, height: 2, frames: [
            APNGFixture.Frame(Fixtures.solid(.red, width: 2, height: 2)), APNGFixture.Frame(Fixtures.solid(.green, width: 2, height: 2)),
            APNGFixture.Frame(Fixtures.solid(.blue, width: 2, height: 2)),
        ], declaredFrames: 2)
        #expect(try coder.decode(data).frames.count == 2)
        #expect(try coder.animationInfo(of: data).frameCount == 2)
    }

    @Test func aSingleFrameBehindAHiddenDefaultImageIsTheStill() throws {
        let data = try APNGFixture.make(
            width: 2, height: 2, frames: [APNGFixture.Frame(Fixtures.solid(.green, width: 2, height: 2))],
            hiddenDefault: Fixtures.solid(.red, width: 2, height: 2))
        let image = try coder.decode(data)
        #expect(image.frames.count == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.bitmap == Fixtures.solid(.green, width: 2, height: 2))
    }

    @Test("structural damage is corrupt", arguments: ["sequence", "outside", "fdAT CRC", "dispose op"])
    func structuralDamage(problem: String) throws {
        let frames = [
            APNGFixture.Frame(Fixtures.solid(.red, width: 4, height: 4)),
            APNGFixture.Frame(Fixtures.solid(.green, width: 2, height: 2), x: problem == "outside" ? 3 : 0),
        ]
        var data = try APNGFixture.make(width: 4, height: 4, frames: frames)
        let fcTL = try #require(data.range(of: Data("fcTL".utf8), options: .backwards))
        let fdAT = try #require(data.range(of: Data("fdAT".utf8), options: .backwards))
        switch problem {
        case "sequence": APNGFixture.patch(&data, chunkType: fdAT.lowerBound, at: 0, with: [0, 0, 0, 9])
        case "fdAT CRC": data[fdAT.upperBound + 5] ^= 0xFF
        case "dispose op": APNGFixture.patch(&data, chunkType: fcTL.lowerBound, at: 24, with: [7])
        default: break
        }
        #expect { try coder.decode(data) } throws: { error in
            guard case ImageCoderError.corrupt(.png, _) = error else { return false }
            return true
        }
    }

    @Test func truncatedAnimationsAreATypedError() throws {
        let data = try Fixtures.data("apng-pillow-basic.png")
        let fdAT = try #require(data.range(of: Data("fdAT".utf8), options: .backwards))
        #expect(throws: ImageCoderError.truncated(.png)) { try coder.decode(data.prefix(fdAT.upperBound + 10)) }
        #expect(throws: ImageCoderError.truncated(.png)) { try coder.decode(data.prefix(data.count - 12)) }  // no IEND
    }

    @Test func damagedInputNeverCrashes() throws {
        let data = try Fixtures.data("apng-pillow-ops.png")
        for end in stride(from: 0, to: data.count, by: 5) {
            expectDecodesOrTypedError { try coder.decode(data.prefix(end)) }
            _ = try? coder.animationInfo(of: data.prefix(end))
        }
        var generator = SplitMix64(seed: 41)
        for _ in 0..<400 {
            var damaged = data
            let index = 8 + Int(generator.next() % UInt64(data.count - 8))
            damaged[index] = UInt8(truncatingIfNeeded: generator.next())
            expectDecodesOrTypedError { try coder.decode(damaged) }
            _ = try? coder.animationInfo(of: damaged)
        }
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(APNGCRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(APNGCRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)
    }
}

fileprivate extension RGBA {
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let green = RGBA(r: 0, g: 255, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let yellow = RGBA(r: 255, g: 255, b: 0)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
}

/// APNG files with exact structures: frame data comes from the PNG encoder (8-bit RGBA), chunks
/// are sealed with the PNG tests' independent CRC (``PNGChunks``).
enum APNGFixture {
    struct Frame {
        var bitmap: Bitmap
        var x: Int
        var y: Int
        var delay: (UInt16, UInt16)
        var dispose: APNGDispose
        var blend: APNGBlend

        init(
            _ bitmap: Bitmap, x: Int = 0, y: Int = 0, delay: (UInt16, UInt16) = (1, 10), dispose: APNGDispose = .none,
            blend: APNGBlend = .source
        ) {
            (self.bitmap, self.x, self.y, self.delay, self.dispose, self.blend) = (bitmap, x, y, delay, dispose, blend)
        }
    }

    /// The first frame is the default image unless `hiddenDefault` is given.
    static func make(
        width: Int, height: Int, frames: [Frame], loop: UInt32 = 0, hiddenDefault: Bitmap? = nil,
        declaredFrames: UInt32? = nil, corruptAnimationControlCRC: Bool = false, animationControlLength: Int = 8,
        animationControlAfterImageData: Bool = false
    ) throws -> Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        out += PNGChunks.chunk("IHDR", be32(width) + be32(height) + Data([8, 6, 0, 0, 0]))
        var actl = PNGChunks.chunk("acTL", (be32(Int(declaredFrames ?? UInt32(frames.count))) + be32(Int(loop))).prefix(animationControlLength))
        if corruptAnimationControlCRC { actl[actl.count - 1] ^= 0xFF }
        if !animationControlAfterImageData { out += actl }
        var sequence = 0
        if let hiddenDefault { out += PNGChunks.chunk("IDAT", try imageData(hiddenDefault)) }
        for (index, frame) in frames.enumerated() {
            var fctl = be32(sequence) + be32(frame.bitmap.width) + be32(frame.bitmap.height) + be32(frame.x) + be32(frame.y)
            fctl += be16(frame.delay.0) + be16(frame.delay.1) + Data([frame.dispose.rawValue, frame.blend.rawValue])
            out += PNGChunks.chunk("fcTL", fctl)
            sequence += 1
            if index == 0 && hiddenDefault == nil {
                out += PNGChunks.chunk("IDAT", try imageData(frame.bitmap))
                if animationControlAfterImageData { out += actl }
            } else {
                out += PNGChunks.chunk("fdAT", be32(sequence) + (try imageData(frame.bitmap)))
                sequence += 1
            }
        }
        return out + PNGChunks.chunk("IEND", Data())
    }

    /// Overwrites the IHDR size (and reseals its CRC).
    static func rewriteIHDR(in data: inout Data, width: Int, height: Int) {
        let body = be32(width) + be32(height) + data[24..<29]
        data.replaceSubrange(8..<33, with: PNGChunks.chunk("IHDR", body))
    }

    /// Overwrites bytes of the chunk whose type starts at `chunkType`, `offset` into its data,
    /// and reseals its CRC (so only the intended damage is there).
    static func patch(_ data: inout Data, chunkType: Int, at offset: Int, with bytes: [UInt8]) {
        let length = data[(chunkType - 4)..<chunkType].reduce(0) { $0 << 8 | Int($1) }
        var body = Data(data[(chunkType + 4)..<(chunkType + 4 + length)])
        body.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        let type = String(decoding: data[chunkType..<(chunkType + 4)], as: UTF8.self)
        data.replaceSubrange((chunkType - 4)..<(chunkType + 8 + length), with: PNGChunks.chunk(type, body))
    }

    /// The zlib stream of `bitmap` as an 8-bit RGBA PNG.
    private static func imageData(_ bitmap: Bitmap) throws -> Data {
        let png = try PNGEncoding.encode(bitmap, hasAlpha: true, compressionLevel: 6)
        var data = Data()
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            if png[(offset + 4)..<(offset + 8)].elementsEqual("IDAT".utf8) { data += png[(offset + 8)..<(offset + 8 + length)] }
            offset += 12 + length
        }
        return data
    }

    private static func be32(_ value: Int) -> Data {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian) { Data($0) }
    }

    private static func be16(_ value: UInt16) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }
}
