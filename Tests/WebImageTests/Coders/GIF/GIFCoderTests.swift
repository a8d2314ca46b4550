import Foundation
import Testing
@testable import WebImage

/// GIF decoding and encoding, SDWebImage's semantics.
///
/// `gif-pillow-*.gif` were written by Pillow 12 (the independent peer):
/// - animated: three solid 16×12 frames red, green, blue; `duration=[200, 10, 70]`, `loop=0`
/// - loop3 / noloop: red then green, `loop=3` / no `loop` (no NETSCAPE2.0 extension)
/// - transparent: 16×8 palette image, left half index 0 with `transparency=0`, right half yellow
/// - interlaced: 24×20, row y in colour (12y, 255 − 12y, 255 if y is odd), `interlace=True`
/// Everything else is built with the coder's own ``GIFWriter`` so each structure is exact.
@Suite("GIFCoder", .onOwnThreads)
struct GIFCoderTests {
    let coder = GIFCoder()

    // MARK: Frames, timing, looping

    @Test func decodesEveryFrameWithItsDelay() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        let image = try coder.decode(data)
        #expect(image.format == .gif)
        #expect(image.frames.count == 3)
        #expect(image.pixelSize == PixelSize(width: 16, height: 12))
        #expect(image.frames.map(\.duration) == [0.2, 0.1, 0.07], "10 ms is 1 cs, under 11 ms: played at 100 ms")
        #expect(image.loopCount == 0)
        #expect(image.hasAlpha == false, "Pillow declares a transparent index on frames 2 and 3 but uses it nowhere")
        #expect(image.originalData == data)
        #expect(image.frames[0].bitmap == Fixtures.solid(.red, width: 16, height: 12))
        #expect(image.frames[1].bitmap == Fixtures.solid(.green, width: 16, height: 12))
        #expect(image.frames[2].bitmap == Fixtures.solid(.blue, width: 16, height: 12))
    }

    @Test("loop count comes from NETSCAPE2.0; without it the animation plays once", arguments: [
        ("gif-pillow-animated.gif", 3, 0), ("gif-pillow-loop3.gif", 2, 3), ("gif-pillow-noloop.gif", 2, 1),
    ])
    func loopCount(name: String, frames: Int, loops: Int) throws {
        let data = try Fixtures.data(name)
        #expect(try coder.decode(data).loopCount == loops)
        #expect(try coder.animationInfo(of: data) == AnimationInfo(
            frameCount: frames, loopCount: loops, canvasSize: PixelSize(width: 16, height: 12)))
    }

    @Test func theAnimextsExtensionAlsoCarriesTheLoopCount() throws {
        var data = try GIFFixture.make(loop: 7, frames: [GIFFixture.fill(0), GIFFixture.fill(1)])
        let netscape = try #require(data.firstRange(of: Data("NETSCAPE2.0".utf8)))
        data.replaceSubrange(netscape, with: Data("ANIMEXTS1.0".utf8))
        #expect(try coder.decode(data).loopCount == 7)
    }

    @Test("delays under 11 ms play at 100 ms", arguments: [(0, 0.1), (1, 0.1), (2, 0.02), (10, 0.1), (150, 1.5)])
    func delayClamp(centiseconds: Int, seconds: Double) throws {
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(0, delay: centiseconds), GIFFixture.fill(1, delay: centiseconds),
        ])
        #expect(try coder.decode(data).frames.map(\.duration) == [seconds, seconds])
    }

    @Test func aFrameWithoutGraphicsControlShowsFor100ms() throws {
        let data = try GIFFixture.make(frames: [GIFFixture.fill(0, control: false), GIFFixture.fill(1, control: false)])
        #expect(try coder.decode(data).frames.map(\.duration) == [0.1, 0.1])
    }

    @Test func aSingleFrameIsAStillImage() throws {
        let image = try coder.decode(try Fixtures.data("gif-pillow-transparent.gif"))
        #expect(image.frames.count == 1)
        #expect(!image.isAnimated)
        #expect(image.frames[0].duration == 0)
    }

    // MARK: Disposal

    /// 8×8 canvas: a red full frame, then a green 4×4 square at (2,2) disposed to background, a
    /// blue 2×2 at (0,0) disposed to previous, then a yellow pixel at (7,7).
    @Test func disposalMethodsCompositeLikeBrowsers() throws {
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(GIFFixture.red, disposal: .keep),
            GIFFixture.rect(2, 2, 4, 4, GIFFixture.green, disposal: .background),
            GIFFixture.rect(0, 0, 2, 2, GIFFixture.blue, disposal: .previous),
            GIFFixture.rect(7, 7, 1, 1, GIFFixture.yellow, disposal: .keep),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames.count == 4)
        // 0: all red.
        #expect(frames[0] == Fixtures.solid(.red, width: 8, height: 8))
        // 1: the green square drawn over red.
        #expect(frames[1][1, 1] == .red)
        #expect(frames[1][2, 2] == .green && frames[1][5, 5] == .green)
        #expect(frames[1][6, 6] == .red)
        // 2: the green square was cleared to transparent, then blue drawn at the corner.
        #expect(frames[2][2, 2] == .clear && frames[2][5, 5] == .clear)
        #expect(frames[2][0, 0] == .blue && frames[2][1, 1] == .blue)
        #expect(frames[2][6, 6] == .red)
        // 3: back to before the blue frame (blue gone, the hole stays), plus yellow.
        #expect(frames[3][0, 0] == .red && frames[3][1, 1] == .red)
        #expect(frames[3][3, 3] == .clear)
        #expect(frames[3][7, 7] == .yellow)
        #expect(frames[3][6, 6] == .red)
    }

    @Test("unspecified (0) and do-not-dispose (1) leave the frame in place", arguments: [0, 1, 5])
    func keepDisposals(code: UInt8) throws {
        var data = try GIFFixture.make(frames: [
            GIFFixture.rect(0, 0, 4, 8, GIFFixture.red), GIFFixture.rect(4, 0, 4, 8, GIFFixture.green),
        ])
        GIFFixture.setDisposal(code, in: &data)
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[1][0, 0] == .red, "frame 0 still shows")
        #expect(frames[1][7, 7] == .green)
    }

    @Test func disposalCode4MeansRestorePreviousAsInBrowsers() throws {
        var data = try GIFFixture.make(frames: [
            GIFFixture.rect(0, 0, 8, 8, GIFFixture.red), GIFFixture.rect(0, 0, 4, 4, GIFFixture.green),
            GIFFixture.rect(7, 7, 1, 1, GIFFixture.blue),
        ])
        GIFFixture.setDisposal(4, in: &data, frame: 1)
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[1][0, 0] == .green)
        #expect(frames[2][0, 0] == .red, "green was undone")
    }

    @Test func restoreToPreviousOnTheFirstFrameLeavesATransparentCanvas() throws {
        let data = try GIFFixture.make(frames: [
            GIFFixture.rect(0, 0, 4, 4, GIFFixture.red, disposal: .previous),
            GIFFixture.rect(4, 4, 4, 4, GIFFixture.green),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[0][0, 0] == .red)
        #expect(frames[1][0, 0] == .clear)
        #expect(frames[1][4, 4] == .green)
    }

    // MARK: Transparency, interlace, colour tables, geometry

    @Test func theTransparentIndexIsClear() throws {
        let image = try coder.decode(try Fixtures.data("gif-pillow-transparent.gif"))
        #expect(image.hasAlpha)
        #expect(image.pixelSize == PixelSize(width: 16, height: 8))
        for y in 0..<8 {
            #expect(image.bitmap[0, y].a == 0 && image.bitmap[7, y].a == 0)
            #expect(image.bitmap[8, y] == .yellow && image.bitmap[15, y] == .yellow)
        }
    }

    @Test func transparentPixelsLetThePreviousFrameShowThrough() throws {
        // Frame 1 is green with a transparent left half: red stays visible there.
        var indices = [UInt8](repeating: GIFFixture.green, count: 64)
        for y in 0..<8 { for x in 0..<4 { indices[y * 8 + x] = GIFFixture.transparent } }
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(GIFFixture.red),
            GIFWriter.Frame(
                width: 8, height: 8, indices: indices,
                control: GIFGraphicsControl(transparentIndex: Int(GIFFixture.transparent))),
        ])
        let image = try coder.decode(data)
        #expect(image.hasAlpha, "a transparent index is declared")
        #expect(image.frames[1].bitmap[0, 0] == .red)
        #expect(image.frames[1].bitmap[7, 7] == .green)
    }

    @Test func aCanvasTheFramesDoNotCoverHasAlpha() throws {
        let data = try GIFFixture.make(frames: [GIFFixture.rect(0, 0, 4, 8, GIFFixture.red)])
        let image = try coder.decode(data)
        #expect(image.hasAlpha)
        #expect(image.bitmap[7, 0] == .clear)
        let covered = try coder.decode(try GIFFixture.make(frames: [GIFFixture.fill(GIFFixture.red)]))
        #expect(!covered.hasAlpha)
    }

    @Test func interlacedRowsLandWhereTheyBelong() throws {
        let data = try Fixtures.data("gif-pillow-interlaced.gif")
        #expect(data[13 + 96 + 9] & 0x40 != 0, "the fixture's image descriptor has the interlace flag")
        let image = try coder.decode(data)
        for y in 0..<20 {
            let expected = RGBA(r: UInt8(y * 12), g: UInt8(255 - y * 12), b: y % 2 == 1 ? 255 : 0)
            #expect(image.bitmap[0, y] == expected && image.bitmap[23, y] == expected, "row \(y)")
        }
    }

    @Test("interlaced frames of any height", arguments: [1, 2, 3, 5, 7, 8, 9, 17])
    func interlacedHeights(height: Int) throws {
        let rows = (0..<height).flatMap { y in [UInt8](repeating: UInt8(y % 5), count: 3) }
        let data = try GIFFixture.make(width: 3, height: height, frames: [
            GIFWriter.Frame(width: 3, height: height, indices: rows, interlaced: true),
        ])
        let bitmap = try coder.decode(data).bitmap
        for y in 0..<height { #expect(bitmap[1, y] == GIFFixture.palette[y % 5], "row \(y)") }
    }

    @Test func localColourTablesOverrideTheGlobalOne() throws {
        let local = [RGBA(r: 10, g: 20, b: 30), RGBA(r: 200, g: 100, b: 50)]
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(1),
            GIFWriter.Frame(width: 8, height: 8, indices: [UInt8](repeating: 1, count: 64), colorMap: local),
            GIFFixture.rect(0, 0, 1, 1, 1),
        ])
        let frames = try coder.decode(data).frames.map(\.bitmap)
        #expect(frames[0][3, 3] == .green, "index 1 in the global table")
        #expect(frames[1][3, 3] == RGBA(r: 200, g: 100, b: 50), "index 1 in the local table")
        #expect(frames[2][0, 0] == .green, "the next frame is back on the global table")
    }

    @Test func indexesPastTheColourTableAreOpaqueBlack() throws {
        let data = try GIFFixture.make(frames: [
            GIFWriter.Frame(width: 8, height: 8, indices: [UInt8](repeating: 3, count: 64), colorMap: [.red, .green]),
        ])
        #expect(try coder.decode(data).bitmap[0, 0] == RGBA(r: 0, g: 0, b: 0))
    }

    @Test func framesReachingOffTheCanvasAreClipped() throws {
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(GIFFixture.red),
            GIFFixture.rect(6, 6, 4, 4, GIFFixture.green),  // half off the bottom-right corner
            GIFFixture.rect(100, 100, 5, 5, GIFFixture.blue),  // entirely off the canvas
            GIFFixture.rect(0, 0, 20, 3, GIFFixture.yellow),  // wider than the canvas
        ])
        let image = try coder.decode(data)
        #expect(image.pixelSize == PixelSize(width: 8, height: 8))
        let frames = image.frames.map(\.bitmap)
        #expect(frames[1][5, 5] == .red && frames[1][6, 6] == .green && frames[1][7, 7] == .green)
        #expect(frames[2] == frames[1])
        #expect(frames[3][7, 2] == .yellow && frames[3][7, 3] == .red)
    }

    @Test func anEmptyFrameIsAFrameThatChangesNothing() throws {
        var data = try GIFFixture.make(frames: [GIFFixture.fill(GIFFixture.red), GIFFixture.fill(GIFFixture.green)])
        // Before the second frame's control extension: a 0×0 descriptor with an empty LZW stream.
        let second = try #require(data.range(of: Data([0x21, 0xF9, 0x04]), options: .backwards))
        data.insert(contentsOf: [0x2C, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00], at: second.lowerBound)
        let image = try coder.decode(data)
        #expect(image.frames.count == 3)
        #expect(image.frames[1].bitmap == image.frames[0].bitmap)
        #expect(image.frames[2].bitmap[0, 0] == .green)
        #expect(try coder.animationInfo(of: data).frameCount == 3)
    }

    @Test func anEmptyLogicalScreenTakesTheFirstFramesExtent() throws {
        var data = try GIFFixture.make(width: 8, height: 8, frames: [GIFFixture.rect(1, 2, 3, 4, GIFFixture.red)])
        data.replaceSubrange(6..<10, with: [0, 0, 0, 0])
        let image = try coder.decode(data)
        #expect(image.pixelSize == PixelSize(width: 4, height: 6))
        #expect(image.bitmap[3, 5] == .red && image.bitmap[0, 0] == .clear)
    }

    @Test func framesThatChangeNothingShareOneBuffer() throws {
        let data = try GIFFixture.make(frames: [
            GIFFixture.fill(GIFFixture.red), GIFFixture.rect(0, 0, 1, 1, GIFFixture.red),  // same colour again
            GIFFixture.rect(0, 0, 1, 1, GIFFixture.green),
        ])
        let image = try coder.decode(data)
        #expect(image.frames.count == 3)
        #expect(image.cost == 2 * 8 * 8 * 4)
        let shared = image.frames[0...1].map { $0.bitmap.pixels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        #expect(shared[0] == shared[1])
    }

    // MARK: Options

    @Test func decodeFirstFrameOnlyGivesAStill() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        let image = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.bitmap == Fixtures.solid(.red, width: 16, height: 12))
        #expect(image.originalData == data)
    }

    @Test func decodeFirstFrameOnlyIgnoresDamageInLaterFrames() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        let cut = data.prefix(0xC0)  // inside the third frame's data
        #expect(throws: ImageCoderError.truncated(.gif)) { try coder.decode(cut) }
        #expect(try coder.decode(cut, options: ImageDecodeOptions(decodeFirstFrameOnly: true)).frames.count == 1)
    }

    @Test func thumbnailsResampleEveryFrame() throws {
        let data = try GIFFixture.make(width: 40, height: 20, frames: [
            GIFFixture.fill(GIFFixture.red, width: 40, height: 20), GIFFixture.fill(GIFFixture.blue, width: 40, height: 20),
        ])
        let image = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(image.frames.count == 2)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 10, height: 5) })
        #expect(image.frames[1].bitmap[5, 2] == .blue)
        #expect(image.originalData == nil)
    }

    @Test func scaleDownLimitCountsEveryFrame() throws {
        let frames = (0..<4).map { GIFFixture.fill(UInt8($0), width: 40, height: 40) }
        let data = try GIFFixture.make(width: 40, height: 40, frames: frames)
        // 4 frames × 20×20 × 4 bytes.
        let image = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 4 * 20 * 20 * 4))
        #expect(image.frames.count == 4)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 20, height: 20) })
    }

    // MARK: Limits and damage

    @Test func aHugeLogicalScreenIsRefusedFromTheHeader() throws {
        // 60000×60000 (3.6 G pixels), then one 1×1 frame.
        var bomb = Data("GIF89a".utf8) + Data([0x60, 0xEA, 0x60, 0xEA, 0x80, 0, 0, 0, 0, 0, 255, 255, 255])
        bomb += Data([0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])
        #expect(throws: ImageCoderError.tooLarge(width: 60000, height: 60000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(bomb)
        }
        #expect(throws: ImageCoderError.tooLarge(width: 16, height: 12, limit: 100)) {
            try coder.decode(try Fixtures.data("gif-pillow-animated.gif"), options: ImageDecodeOptions(maxPixelCount: 100))
        }
    }

    @Test func aHugeFrameRectangleIsRefusedBeforeDecoding() throws {
        var data = try GIFFixture.make(frames: [GIFFixture.fill(GIFFixture.red)])
        // The image descriptor's width and height → 60000.
        let descriptor = try #require(data.lastIndex(of: 0x2C))
        data.replaceSubrange((descriptor + 5)..<(descriptor + 9), with: [0x60, 0xEA, 0x60, 0xEA])
        #expect(throws: ImageCoderError.tooLarge(width: 60000, height: 60000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(data)
        }
    }

    @Test func animationsOverTheByteBudgetAreScaledDownNotRefused() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")  // 3 frames of 16×12
        let budget = 16 * 12 * 4 * 2
        let image = try coder.decode(data, options: ImageDecodeOptions(maxAnimationBytes: budget))
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.width < 16 && $0.bitmap.size.pixelCount * 4 * 3 <= budget })
        #expect(image.frames[2].bitmap[0, 0] == .blue)
        #expect(image.originalData == nil)
        let roomy = try coder.decode(data, options: ImageDecodeOptions(maxAnimationBytes: 16 * 12 * 4 * 3))
        #expect(roomy.pixelSize == PixelSize(width: 16, height: 12))
    }

    @Test func truncatedDataIsATypedError() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        for end in [3, 8, 12, 20, 0x40, 0x90, data.count - 4] {
            #expect(throws: ImageCoderError.truncated(.gif), "cut at \(end)") { try coder.decode(data.prefix(end)) }
        }
        #expect(throws: ImageCoderError.truncated(.gif)) { try coder.animationInfo(of: data.prefix(0x90)) }
        #expect(throws: ImageCoderError.emptyData) { try coder.decode(Data()) }
    }

    @Test func aMissingTrailerIsTolerated() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        #expect(try coder.decode(data.dropLast()).frames.count == 3)
    }

    @Test func junkAfterTheLastFrameEndsTheAnimation() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        #expect(try coder.decode(data.dropLast() + Data([0x99, 0x12, 0x34])).frames.count == 3)
    }

    @Test func garbageIsCorruptWithGiflibsReason() throws {
        let notGIF = Data("GIX89a and then some text".utf8)
        #expect { try coder.decode(notGIF) } throws: { error in
            guard case ImageCoderError.corrupt(.gif, let reason) = error else { return false }
            return reason.contains("not in GIF format")
        }
        // A valid header followed by a byte that starts no record.
        let junk = Data("GIF89a".utf8) + Data([8, 0, 8, 0, 0, 0, 0]) + Data([0x99, 0x01, 0x02])
        #expect { try coder.decode(junk) } throws: { error in
            guard case ImageCoderError.corrupt(.gif, let reason) = error else { return false }
            return reason.contains("Wrong record type")
        }
    }

    @Test func undecodableLZWIsCorrupt() throws {
        // Clear code then code 7, which no table entry defines yet.
        let data = GIFFixture.raw2x2(lzw: [0x01, 0x3C, 0x00])
        #expect { try coder.decode(data) } throws: { error in
            guard case ImageCoderError.corrupt(.gif, let reason) = error else { return false }
            return reason.contains("defective")
        }
    }

    @Test func anLZWStreamThatEndsEarlyKeepsTheRowsItHas() throws {
        // Clear, 1, 1, end: two pixels of a 2×2 frame.
        let image = try coder.decode(GIFFixture.raw2x2(lzw: [0x02, 0x4C, 0x0A, 0x00]))
        #expect(image.bitmap[0, 0] == .green && image.bitmap[1, 0] == .green)
        #expect(image.bitmap[0, 1] == .clear)
    }

    @Test func damagedInputNeverCrashes() throws {
        let samples = [
            try Fixtures.data("gif-pillow-interlaced.gif"),
            try coder.encode(Image(frames: [
                ImageFrame(bitmap: Fixtures.testCard(width: 24, height: 16, alpha: true), duration: 0.1),
                ImageFrame(bitmap: Fixtures.testCard(width: 24, height: 16), duration: 0.2),
            ])),
        ]
        var generator = SplitMix64(seed: 29)
        for data in samples {
            for end in stride(from: 0, to: data.count, by: 7) {
                expectDecodesOrTypedError { try coder.decode(data.prefix(end)) }
            }
            for _ in 0..<300 {
                var damaged = data
                for _ in 0..<3 {
                    let index = 6 + Int(generator.next() % UInt64(data.count - 6))
                    damaged[index] = UInt8(truncatingIfNeeded: generator.next())
                }
                expectDecodesOrTypedError { try coder.decode(damaged) }
                _ = try? coder.animationInfo(of: damaged)
            }
        }
    }

    // MARK: Encoding

    @Test func encodesGIFOnly() throws {
        #expect(coder.canEncode(to: .gif))
        #expect(!coder.canEncode(to: .png))
        #expect(throws: ImageCoderError.self) {
            try coder.encode(Image(bitmap: Fixtures.solid(.red, width: 2, height: 2)), as: .png)
        }
    }

    @Test func aStillWithFewColoursRoundTripsExactly() throws {
        var bitmap = Fixtures.solid(.red, width: 20, height: 10)
        for x in 0..<10 { bitmap.pixels.replaceSubrange((x * 4)..<(x * 4 + 4), with: [1, 2, 3, 255]) }
        let data = try coder.encode(Image(bitmap: bitmap))
        #expect(ImageFormat.detect(data) == .gif)
        let decoded = try coder.decode(data)
        #expect(decoded.frames.count == 1)
        #expect(decoded.bitmap == bitmap)
        #expect(!decoded.hasAlpha)
    }

    @Test func animationsRoundTripFramesDelaysAndLoopCount() throws {
        let card = Fixtures.testCard(width: 48, height: 32)  // well over 256 colours
        let image = Image(frames: [
            ImageFrame(bitmap: card, duration: 0.05),
            ImageFrame(bitmap: Fixtures.solid(.blue, width: 48, height: 32), duration: 0.123),
            ImageFrame(bitmap: Fixtures.solid(.yellow, width: 48, height: 32), duration: 1),
        ], loopCount: 2)
        let data = try coder.encode(image)
        let decoded = try coder.decode(data)
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == 2)
        #expect(decoded.frames.map(\.duration) == [0.05, 0.12, 1.0], "rounded to centiseconds")
        #expect(meanChannelDifference(decoded.frames[0].bitmap, card) < 3)
        #expect(maxChannelDifference(decoded.frames[0].bitmap, card) <= 16)
        #expect(decoded.frames[1].bitmap == Fixtures.solid(.blue, width: 48, height: 32))
        #expect(decoded.frames[2].bitmap == Fixtures.solid(.yellow, width: 48, height: 32))
        #expect(try coder.animationInfo(of: data) == AnimationInfo(
            frameCount: 3, loopCount: 2, canvasSize: PixelSize(width: 48, height: 32)))
    }

    @Test("loop counts survive a round trip", arguments: [0, 1, 5, 65535])
    func loopCountRoundTrip(loops: Int) throws {
        let image = Image(frames: [
            ImageFrame(bitmap: Fixtures.solid(.red, width: 4, height: 4), duration: 0.1),
            ImageFrame(bitmap: Fixtures.solid(.green, width: 4, height: 4), duration: 0.1),
        ], loopCount: loops)
        let data = try coder.encode(image)
        #expect(try coder.decode(data).loopCount == loops)
        #expect((data.firstRange(of: Data("NETSCAPE2.0".utf8)) != nil) == (loops != 1), "1 is written as no extension")
    }

    @Test func alphaBecomesTheTransparentIndex() throws {
        let card = Fixtures.testCard(width: 16, height: 16, alpha: true)  // alpha ramps 255 → 0 down the rows
        let decoded = try coder.decode(try coder.encode(Image(bitmap: card)))
        #expect(decoded.hasAlpha)
        for y in 0..<16 {
            let expected: UInt8 = card[0, y].a < 128 ? 0 : 255
            #expect(decoded.bitmap[0, y].a == expected, "row \(y)")
        }
    }

    @Test func transparentAreasOfLaterFramesDoNotShowEarlierOnes() throws {
        var second = Fixtures.solid(.green, width: 8, height: 8)
        for i in stride(from: 0, to: 4 * 8 * 4, by: 4) { second.pixels[i + 3] = 0 }  // top half clear
        let image = Image(frames: [
            ImageFrame(bitmap: Fixtures.solid(.red, width: 8, height: 8), duration: 0.1),
            ImageFrame(bitmap: second, duration: 0.1),
        ])
        let decoded = try coder.decode(try coder.encode(image))
        #expect(decoded.frames[1].bitmap[0, 0].a == 0)
        #expect(decoded.frames[1].bitmap[0, 7] == .green)
    }

    @Test func encodeFirstFrameOnlyWritesAStill() throws {
        let image = Image(frames: [
            ImageFrame(bitmap: Fixtures.solid(.red, width: 4, height: 4), duration: 0.1),
            ImageFrame(bitmap: Fixtures.solid(.green, width: 4, height: 4), duration: 0.1),
        ])
        let data = try coder.encode(image, options: ImageEncodeOptions(encodeFirstFrameOnly: true))
        let decoded = try coder.decode(data)
        #expect(decoded.frames.count == 1)
        #expect(decoded.bitmap == Fixtures.solid(.red, width: 4, height: 4))
        #expect(data.firstRange(of: Data("NETSCAPE2.0".utf8)) == nil)
    }

    @Test func aPillowAnimationReencodesToTheSamePixels() throws {
        let original = try coder.decode(try Fixtures.data("gif-pillow-animated.gif"))
        let again = try coder.decode(try coder.encode(original))
        #expect(again.frames.map(\.bitmap) == original.frames.map(\.bitmap))
        #expect(again.frames.map(\.duration) == original.frames.map(\.duration))
        #expect(again.loopCount == original.loopCount)
    }

    @Test func theQuantizerKeepsFewColoursExactAndCapsManyAt256() throws {
        let few = ColorQuantizer.quantize(Fixtures.solid(.red, width: 3, height: 3))
        #expect(few.palette == [.red])
        #expect(few.transparentIndex == nil)
        let many = ColorQuantizer.quantize(Fixtures.testCard(width: 64, height: 64, alpha: true))
        #expect(many.palette.count == 256)
        #expect(many.transparentIndex == 255)
        #expect(many.indices.count == 64 * 64)
    }
}

fileprivate extension RGBA {
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let green = RGBA(r: 0, g: 255, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let yellow = RGBA(r: 255, g: 255, b: 0)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
}

/// GIFs with exact structures, written by the coder's own ``GIFWriter``. The global table is
/// ``palette``; ``transparent`` is an index tests declare transparent.
enum GIFFixture {
    static let red: UInt8 = 0, green: UInt8 = 1, blue: UInt8 = 2, yellow: UInt8 = 3, transparent: UInt8 = 7
    static let palette: [RGBA] = [.red, .green, .blue, .yellow, RGBA(r: 255, g: 255, b: 255), .clear, .clear, .clear]

    static func make(width: Int = 8, height: Int = 8, loop: Int? = nil, frames: [GIFWriter.Frame]) throws -> Data {
        let writer = try GIFWriter(width: width, height: height, globalColorMap: palette)
        if let loop { try writer.writeLoopCount(loop) }
        for frame in frames { try writer.write(frame) }
        return try writer.finish()
    }

    static func rect(
        _ x: Int, _ y: Int, _ width: Int, _ height: Int, _ index: UInt8, disposal: GIFDisposal = .keep, delay: Int = 10,
        control: Bool = true
    ) -> GIFWriter.Frame {
        GIFWriter.Frame(
            left: x, top: y, width: width, height: height, indices: [UInt8](repeating: index, count: width * height),
            control: control ? GIFGraphicsControl(disposal: disposal, delay: delay) : nil)
    }

    static func fill(
        _ index: UInt8, width: Int = 8, height: Int = 8, disposal: GIFDisposal = .keep, delay: Int = 10, control: Bool = true
    ) -> GIFWriter.Frame {
        rect(0, 0, width, height, index, disposal: disposal, delay: delay, control: control)
    }

    /// Rewrites the disposal field of the `frame`th Graphics Control Extension (every one when
    /// `nil`) to `code`.
    static func setDisposal(_ code: UInt8, in data: inout Data, frame: Int? = nil) {
        var search = data.startIndex
        var index = 0
        while let range = data[search...].firstRange(of: Data([0x21, 0xF9, 0x04])) {
            let packed = range.upperBound
            if frame == nil || frame == index { data[packed] = data[packed] & ~0x1C | (code & 7) << 2 }
            search = packed
            index += 1
        }
    }

    /// A hand-made 2×2 GIF (red, green table) whose frame's LZW data is `lzw` (sub-blocks with
    /// their terminator), minimum code size 2.
    static func raw2x2(lzw: [UInt8]) -> Data {
        Data("GIF89a".utf8) + Data([2, 0, 2, 0, 0x80, 0, 0, 255, 0, 0, 0, 255, 0])
            + Data([0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2]) + Data(lzw) + Data([0x3B])
    }
}
