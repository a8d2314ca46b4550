import Foundation
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

    @Test func bandsMadeInParallelGiveTheSameBytesAsOneBand() async throws {
        let card = Fixtures.testCard(width: 1200, height: 900, alpha: true)
        let region = ResamplingRegion(x: 10.25, y: 3.5, width: 1100.5, height: 850)
        try await onOwnThread {
            for size in [PixelSize(width: 1300, height: 1000), PixelSize(width: 503, height: 397), PixelSize(width: 97, height: 41)] {
                let one = card.resampled(from: region, to: size, bands: 1)
                for bands in [2, 3, 8] {
                    #expect(card.resampled(from: region, to: size, bands: bands) == one, "\(size), \(bands) bands")
                }
            }
        }
    }

    @Test func aLargeOutputIsMadeInBandsWhenThereAreCoresForThem() {
        #expect((Bitmap.resamplingBands(PixelSize(width: 1920, height: 1440)) > 1) == (ImageWorkQueue.defaultWidth > 1))
        #expect(Bitmap.resamplingBands(PixelSize(width: 512, height: 320)) == 1)
    }

    @Test(arguments: [false, true])
    func aPhotoStaysWithinRoundingOfTheFilterInDoublePrecision(alpha: Bool) async throws {
        var photo = try ImageCodersManager.shared.decode(try Fixtures.data("detection-astronaut-200.jpg")).bitmap
        if alpha {
            for y in 0..<photo.height {
                for x in 0..<photo.width { photo.pixels[y * photo.bytesPerRow + x * 4 + 3] = UInt8((x * 7 + y * 3) % 256) }
            }
        }
        let source = photo
        let whole = ResamplingRegion(x: 0, y: 0, width: Double(photo.width), height: Double(photo.height))
        let crop = ResamplingRegion(x: 17.5, y: 40.25, width: 150, height: 101.5)
        // Reductions below the box pre-shrink's threshold, an odd one, an enlargement, and a crop.
        for (region, size) in [(whole, PixelSize(width: 103, height: 61)), (whole, PixelSize(width: 57, height: 77)),
                               (whole, PixelSize(width: 331, height: 290)), (crop, PixelSize(width: 90, height: 61))] {
            let (fast, reference) = try await onOwnThread {
                (source.resampled(from: region, to: size), ReferenceResampler.resampled(source, from: region, to: size))
            }
            #expect(maxChannelDifference(fast, reference) <= 1, "\(region) → \(size)")
            #expect(meanChannelDifference(fast, reference) < 0.01, "\(region) → \(size)")
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

/// The resampler's filter written plainly in double precision — separable Lanczos-3 whose
/// support widens with the reduction, taps clipped to the image and renormalised, colour
/// premultiplied — as the yardstick for the fast float path.
private enum ReferenceResampler {
    static func resampled(_ source: Bitmap, from region: ResamplingRegion, to size: PixelSize) -> Bitmap {
        let columns = taps(source: source.width, start: region.x, length: region.width, destination: size.width)
        let rows = taps(source: source.height, start: region.y, length: region.height, destination: size.height)
        var out = Bitmap(width: size.width, height: size.height)
        for y in 0..<size.height {
            for x in 0..<size.width {
                var sum = [Double](repeating: 0, count: 4)
                for (sy, wy) in rows[y] {
                    for (sx, wx) in columns[x] {
                        let p = source[sx, sy]
                        let a = Double(p.a)
                        let w = wx * wy
                        sum[0] += w * Double(p.r) * a / 255
                        sum[1] += w * Double(p.g) * a / 255
                        sum[2] += w * Double(p.b) * a / 255
                        sum[3] += w * a
                    }
                }
                let alpha = byte(sum[3])
                let i = y * out.bytesPerRow + x * 4
                if alpha > 0 {
                    for c in 0..<3 { out.pixels[i + c] = byte(sum[c] * 255 / sum[3]) }
                    out.pixels[i + 3] = alpha
                }
            }
        }
        return out
    }

    private static func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }

    /// Per destination pixel, the source pixels its filter covers (those that exist) and their
    /// weights, normalised.
    private static func taps(source: Int, start: Double, length: Double, destination: Int) -> [[(Int, Double)]] {
        let scale = length / Double(destination)
        let support = 3 * max(scale, 1)
        return (0..<destination).map { i in
            let centre = start + (Double(i) + 0.5) * scale
            let first = max(0, Int((centre - support).rounded(.down)))
            let end = min(source, Int((centre + support).rounded(.up)))
            let weights = (first..<end).map { (j: Int) in (j, lanczos((Double(j) + 0.5 - centre) / max(scale, 1))) }
            let total = weights.reduce(0) { $0 + $1.1 }
            return weights.map { ($0.0, $0.1 / total) }
        }
    }

    /// sinc(x)·sinc(x/3) for |x| < 3.
    private static func lanczos(_ x: Double) -> Double {
        guard abs(x) < 3 else { return 0 }
        if x == 0 { return 1 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}
