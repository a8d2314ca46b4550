import Foundation
import Testing
@testable import WebImage

/// The fuzzers' GIF finding: compositing costs frames × canvas even when the output is scaled to
/// fit the animation budget, so a tiny file of many one-pixel frames on a huge screen decoded for
/// minutes. Each animated decoder now refuses such an animation before drawing a frame.
@Suite("Fuzz: animation compositing work", .onOwnThreads)
struct FuzzAnimationWorkTests {
    /// 296 bytes: a 65535×1500 screen (98 MP, under the default pixel limit) and 12 one-pixel
    /// frames, 1.18 G pixels of compositing against the default 1.07 G (8 × 512 MB / 4).
    @Test func aGIFFrameBombIsRefusedAtTheDefaultLimits() throws {
        let data = try Fixtures.data("fuzz/gif-frame-bomb.gif")
        let limit = ImageDecodeOptions.defaultMaxAnimationBytes / 4 * ImageDecodeOptions.animationWorkFactor / 12
        #expect(throws: ImageCoderError.tooLarge(width: 65535, height: 1500, limit: limit)) {
            try GIFCoder().decode(data)
        }
    }

    /// Three 16×12 frames are 576 pixels of work; a 200-byte budget allows 400.
    @Test("each animated decoder checks the work before decoding", arguments: [
        ("gif-pillow-animated.gif", PixelSize(width: 16, height: 12), 200),
        ("apng-pillow-basic.png", PixelSize(width: 16, height: 12), 200),
        ("webp-animated.webp", PixelSize(width: 32, height: 24), 1000),
    ])
    func everyAnimatedDecoderChecks(name: String, canvas: PixelSize, budget: Int) throws {
        let data = try Fixtures.data(name)
        let options = ImageDecodeOptions(maxAnimationBytes: budget)
        let limit = budget / 4 * ImageDecodeOptions.animationWorkFactor / 3
        #expect(throws: ImageCoderError.tooLarge(width: canvas.width, height: canvas.height, limit: limit)) {
            try ImageCodersManager.shared.decode(data, options: options)
        }
        // One frame is no compositing: the poster still decodes, and so does the animation with
        // room for the work (the byte budget alone scales it down, as before).
        var firstFrame = options
        firstFrame.decodeFirstFrameOnly = true
        #expect(try ImageCodersManager.shared.decode(data, options: firstFrame).frames.count == 1)
        let roomy = ImageDecodeOptions(maxAnimationBytes: canvas.pixelCount * 4)
        #expect(try ImageCodersManager.shared.decode(data, options: roomy).frames.count == 3)
    }

    @Test func noBudgetMeansNoWorkLimit() throws {
        let data = try Fixtures.data("gif-pillow-animated.gif")
        #expect(try GIFCoder().decode(data, options: ImageDecodeOptions(maxAnimationBytes: nil)).frames.count == 3)
    }
}
