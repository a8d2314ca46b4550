import Foundation
import Testing
@testable import WebImage

private let animations = [
    "gif-pillow-animated.gif", "gif-pillow-loop3.gif", "gif-pillow-noloop.gif", "gif-pillow-transparent.gif",
    "apng-pillow-basic.png", "apng-pillow-ops.png", "apng-pillow-palette.png", "apng-pillow-hidden-default.png",
    "webp-animated.webp", "avif-sequence.avif", "jxl-animated.jxl",
]

@Suite("AnimatedImage")
struct AnimatedImageTests {
    @Test("every frame equals the eager decoder's, in order and in any order; timing and loop count agree", arguments: animations)
    func framesEqualTheEagerDecode(file: String) throws {
        let data = try Fixtures.data(file)
        let eager = try ImageCodersManager.shared.decode(data)
        let lazy = try AnimatedImage(data: data)
        #expect(lazy.frameCount == eager.frames.count)
        #expect(lazy.loopCount == eager.loopCount)
        #expect(lazy.pixelSize == eager.pixelSize)
        // Declared, not measured: a GIF naming a transparent index it never draws says alpha
        // (Pillow writes one on every frame); an image with transparency never says opaque.
        if eager.hasAlpha { #expect(lazy.hasAlpha) }
        if eager.isAnimated { #expect(lazy.frameDurations == eager.frames.map(\.duration)) }
        for index in 0..<lazy.frameCount {
            #expect(try lazy.frame(at: index) == eager.frames[index].bitmap, "frame \(index)")
        }
        // Backwards and jumping: each asks the sequence to start again or run ahead.
        for index in [lazy.frameCount - 1, 0, lazy.frameCount / 2, lazy.frameCount - 1, 0].reversed() {
            #expect(try lazy.frame(at: index) == eager.frames[index].bitmap, "frame \(index) out of order")
        }
        #expect(lazy.data == data)
    }

    @Test("OnDemandAnimationCoder: animations come back as their poster and an AnimatedImage; stills and other formats as the base coder decodes them",
          arguments: ["gif-pillow-animated.gif", "apng-pillow-basic.png", "webp-animated.webp", "png-rgb.png", "webp-lossy.webp", "jpeg-baseline.jpg", "avif-sequence.avif"])
    func onDemandCoder(file: String) throws {
        let data = try Fixtures.data(file)
        let image = try OnDemandAnimationCoder().decode(data, options: .default)
        let eager = try ImageCodersManager.shared.decode(data)
        #expect(image.bitmap == eager.bitmap)
        let onDemand = [ImageFormat.gif, .png, .webp].contains(eager.format) && eager.isAnimated
        #expect((image.animatedImage != nil) == onDemand)
        #expect(image.frames.count == (onDemand ? 1 : eager.frames.count))
        #expect(image.animatedImage?.frameCount ?? eager.frames.count == eager.frames.count)
    }

    @Test("memory is the bytes and a few canvases (the working one, checkpoints for going back), not the frames")
    func costIsBytesAndCanvases() throws {
        let data = try Fixtures.data("webp-animated.webp")  // WebP keeps no checkpoints
        let lazy = try AnimatedImage(data: data)
        #expect(lazy.cost == data.count + lazy.pixelSize.pixelCount * Bitmap.bytesPerPixel)
        let frames = (0..<40).map { index in
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: UInt8(index * 6), g: 0, b: 0, a: 255), width: 64, height: 64), duration: 0.05)
        }
        let long = try AnimatedImage(data: try GIFCoder().encode(Image(frames: frames), as: .gif, options: .default))
        let canvas = 64 * 64 * Bitmap.bytesPerPixel
        #expect(long.cost < long.data.count + 20 * canvas && long.cost < 40 * canvas)
    }

    @Test("played backwards, frames resume from checkpoints instead of compositing from the first frame each time")
    func backwardsUsesCheckpoints() throws {
        let frames = (0..<40).map { index in
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: UInt8(index * 6), g: UInt8(255 - index * 6), b: 9, a: 255), width: 32, height: 32), duration: 0.05)
        }
        let data = try GIFCoder().encode(Image(frames: frames), as: .gif, options: .default)
        let eager = try GIFCoder().decode(data, options: .default)
        let lazy = try AnimatedImage(data: data)
        for index in (0..<40).reversed() { #expect(try lazy.frame(at: index) == eager.frames[index].bitmap, "frame \(index)") }
        // From the first frame every time: 40 + 39 + … + 1 = 820 composites. The first pass back
        // leaves a checkpoint every 2 frames (16 of them for 40 frames).
        #expect(lazy.compositedFrames < 200, "\(lazy.compositedFrames) composites")
        for index in (0..<40).reversed() { #expect(try lazy.frame(at: index) == eager.frames[index].bitmap, "again, frame \(index)") }
    }

    @Test("a thumbnail box sizes every frame as the eager decoder would")
    func thumbnailFrames() throws {
        let data = try Fixtures.data("webp-animated.webp")
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let eager = try ImageCodersManager.shared.decode(data, options: options)
        let lazy = try AnimatedImage(data: data, options: options)
        #expect(lazy.pixelSize == eager.pixelSize)
        for index in 0..<lazy.frameCount { #expect(try lazy.frame(at: index) == eager.frames[index].bitmap) }
    }

    @Test("bad input is a typed error before any frame: empty, cut off, over the pixel limit")
    func badInput() throws {
        #expect(throws: ImageCoderError.emptyData) { try AnimatedImage(data: Data()) }
        let data = try Fixtures.data("gif-pillow-animated.gif")
        #expect(throws: ImageCoderError.self) { try AnimatedImage(data: Data(data.prefix(data.count / 2))) }
        #expect(throws: ImageCoderError.self) { try AnimatedImage(data: data, options: ImageDecodeOptions(maxPixelCount: 10)) }
        #expect(throws: ImageCoderError.self) { try AnimatedImage(data: Data("not an image".utf8)) }
    }
}
