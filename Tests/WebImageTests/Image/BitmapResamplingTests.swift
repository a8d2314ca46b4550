import Testing
@testable import WebImage

@Suite("Bitmap resampling")
struct BitmapResamplingTests {
    @Test func aSolidColourStaysExactAtAnySize() {
        let solid = Fixtures.solid(RGBA(r: 12, g: 200, b: 99, a: 255), width: 37, height: 23)
        for size in [PixelSize(width: 5, height: 3), PixelSize(width: 100, height: 70), PixelSize(width: 1, height: 1)] {
            let scaled = solid.resampled(to: size)
            #expect(scaled.size == size)
            #expect(scaled == Fixtures.solid(RGBA(r: 12, g: 200, b: 99, a: 255), width: size.width, height: size.height))
        }
    }

    @Test func downscalingAveragesInsteadOfSkipping() {
        // 1-pixel black/white stripes average to mid grey; point sampling would give all black or white.
        var stripes = Bitmap(width: 64, height: 64)
        for y in 0..<64 {
            for x in 0..<64 where x % 2 == 0 {
                let i = y * stripes.bytesPerRow + x * 4
                stripes.pixels.replaceSubrange(i..<(i + 4), with: [255, 255, 255, 255])
            }
            for x in 0..<64 where x % 2 == 1 { stripes.pixels[y * stripes.bytesPerRow + x * 4 + 3] = 255 }
        }
        let small = stripes.resampled(to: PixelSize(width: 8, height: 8))
        let centre = small[4, 4]
        #expect((120...135).contains(centre.r))
    }

    @Test func transparentPixelsDoNotBleedTheirColour() {
        // Left half opaque red, right half fully transparent *green*: no green may appear.
        var bitmap = Bitmap(width: 32, height: 8)
        for y in 0..<8 {
            for x in 0..<32 {
                let i = y * bitmap.bytesPerRow + x * 4
                bitmap.pixels.replaceSubrange(i..<(i + 4), with: x < 16 ? [255, 0, 0, 255] : [0, 255, 0, 0])
            }
        }
        let small = bitmap.resampled(to: PixelSize(width: 8, height: 2))
        for x in 0..<8 where small[x, 0].a > 0 {
            #expect(small[x, 0].g == 0, "pixel \(x) is \(small[x, 0])")
        }
    }

    @Test func flatteningCompositesOverTheBackground() {
        let half = Fixtures.solid(RGBA(r: 0, g: 0, b: 0, a: 128), width: 2, height: 2)
        let flat = half.flattened(over: RGBA(r: 255, g: 255, b: 255))
        #expect(flat[1, 1] == RGBA(r: 127, g: 127, b: 127, a: 255))
    }
}

@Suite("Bitmap box shrinking")
struct BitmapBoxShrinkingTests {
    @Test func averagesBlocksIncludingPartialEdges() {
        // 5×1: [0, 100, 200, 50, 250] in red, shrunk by 2 → [50, 125, 250].
        let reds: [UInt8] = [0, 100, 200, 50, 250]
        let bitmap = Bitmap(width: 5, height: 1, pixels: reds.flatMap { [$0, 0, 0, 255] })
        let shrunk = bitmap.boxShrunk(by: 2, 1)
        #expect(shrunk.size == PixelSize(width: 3, height: 1))
        #expect((0..<3).map { shrunk[$0, 0].r } == [50, 125, 250])
    }

    @Test func largeReductionsMatchTheDirectFilterClosely() {
        let card = Fixtures.testCard(width: 1200, height: 900, alpha: true)
        let target = PixelSize(width: 60, height: 45)
        let fast = card.resampled(to: target)
        #expect(fast.size == target)
        let smooth = Fixtures.testCard(width: 60, height: 45, alpha: true)
        // Ramps survive; the 8-px checker averages out to its mean in both.
        #expect(abs(Int(fast[30, 20].r) - Int(smooth[30, 20].r)) <= 6)
        #expect(abs(Int(fast[30, 20].a) - Int(smooth[30, 20].a)) <= 6)
    }
}
