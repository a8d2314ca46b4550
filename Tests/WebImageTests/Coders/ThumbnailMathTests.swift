import Testing
@testable import WebImage

@Suite("ThumbnailMath")
struct ThumbnailMathTests {
    @Test("fits inside the box keeping the aspect ratio", arguments: [
        (PixelSize(width: 4000, height: 3000), PixelSize(width: 256, height: 256), PixelSize(width: 256, height: 192)),
        (PixelSize(width: 3000, height: 4000), PixelSize(width: 256, height: 256), PixelSize(width: 192, height: 256)),
        (PixelSize(width: 1000, height: 333), PixelSize(width: 100, height: 100), PixelSize(width: 100, height: 34)),  // rounded up
        (PixelSize(width: 100, height: 100), PixelSize(width: 500, height: 500), PixelSize(width: 100, height: 100)),  // no upscale
        (PixelSize(width: 10_000, height: 1), PixelSize(width: 10, height: 10), PixelSize(width: 10, height: 1)),  // at least 1
    ])
    func fitting(source: PixelSize, box: PixelSize, expected: PixelSize) {
        #expect(ThumbnailMath.scaledSize(source, fitting: box) == expected)
    }

    @Test func stretchesWhenAspectIsNotKept() {
        let size = ThumbnailMath.scaledSize(PixelSize(width: 400, height: 100), fitting: PixelSize(width: 50, height: 50), preserveAspectRatio: false)
        #expect(size == PixelSize(width: 50, height: 50))
    }

    @Test("limit bytes: side from sqrt(limit / frames / 4), aspect kept, floored", arguments: [
        (PixelSize(width: 1600, height: 1200), 1_920_000, 1, PixelSize(width: 800, height: 600)),
        (PixelSize(width: 1600, height: 1200), 1_920_000, 4, PixelSize(width: 400, height: 300)),
        (PixelSize(width: 1000, height: 10), 4, 1, PixelSize(width: 10, height: 1)),  // ≥ 1×1
        (PixelSize.zero, 1000, 1, PixelSize(width: 1, height: 1)),
    ])
    func limitBytes(source: PixelSize, limit: Int, frames: Int, expected: PixelSize) {
        #expect(ThumbnailMath.scaledSize(source, limitBytes: limit, frameCount: frames) == expected)
    }

    @Test func decodeOptionsPickTheTarget() {
        let source = PixelSize(width: 1600, height: 1200)
        #expect(ImageDecodeOptions().targetSize(for: source) == nil)
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 3000, height: 3000)).targetSize(for: source) == nil)
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 160, height: 160)).targetSize(for: source)
            == PixelSize(width: 160, height: 120))
        // Under the byte limit nothing changes (never upscale); the limit overrides a thumbnail box.
        #expect(ImageDecodeOptions(scaleDownLimitBytes: 100_000_000).targetSize(for: source) == nil)
        #expect(ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10), scaleDownLimitBytes: 1_920_000)
            .targetSize(for: source) == PixelSize(width: 800, height: 600))
    }
}

@Suite("Animation budget")
struct AnimationBudgetTests {
    @Test func manyLargeFramesAreScaledToTheBudgetInsteadOfRefused() {
        let canvas = PixelSize(width: 1000, height: 1000)
        let options = ImageDecodeOptions(maxAnimationBytes: 40_000_000)
        // 100 frames × 4 MB = 400 MB > 40 MB → each frame gets 100,000 pixels.
        #expect(options.targetSize(for: canvas, frameCount: 100) == PixelSize(width: 316, height: 316))
        // Within the budget, or a still image: untouched.
        #expect(options.targetSize(for: canvas, frameCount: 5) == nil)
        #expect(options.targetSize(for: canvas, frameCount: 1) == nil)
        #expect(ImageDecodeOptions(maxAnimationBytes: nil).targetSize(for: canvas, frameCount: 100) == nil)
    }
}
