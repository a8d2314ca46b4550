import CWebImageResampling
import Dispatch
import Foundation

/// Resampling with a separable Lanczos-3 filter (a windowed sinc reaching ±3 pixels) whose support
/// widens with the reduction factor, so downscaling averages every source pixel (no aliasing) — the
/// filter Pillow calls LANCZOS, and thumbor's, imgproxy's and libvips' default. Colour is filtered
/// premultiplied, so transparent pixels do not bleed their (meaningless) colour into visible ones.
///
/// Speed: the taps are computed here; the filtering runs in C (`CWebImageResampling`), four
/// pixels of floats per vector op at the widest width the CPU has, in the same float operations
/// and order on every CPU, so the bytes never depend on the machine. The two passes are
/// streamed: each source row is filtered horizontally once into a small ring of rows that the
/// vertical pass reads, so no full-size intermediate image is ever allocated. Large outputs are
/// made in bands of rows on several cores. Big reductions box-average first (``boxShrunk(by:_:)``).
extension Bitmap {
    /// This bitmap scaled to `size` (any direction, aspect not kept).
    public func resampled(to size: PixelSize) -> Bitmap {
        precondition(!size.isEmpty, "resampling to an empty size")
        if size == self.size { return self }
        return resampled(from: ResamplingRegion(x: 0, y: 0, width: Double(width), height: Double(height)), to: size)
    }

    /// The part `region` of this bitmap (source pixels, fractions allowed) scaled to `size`.
    /// Filter taps that reach outside the region read the pixels there, as drawing a larger image
    /// through a clip would. `bands` (specs only) overrides how many bands of rows are made at once.
    func resampled(from region: ResamplingRegion, to size: PixelSize, bands: Int? = nil) -> Bitmap {
        precondition(!size.isEmpty, "resampling to an empty size")
        precondition(!self.size.isEmpty && region.width > 0 && region.height > 0, "resampling an empty region")
        // Big reductions: box-average down to about twice the target first (see boxShrunk).
        let fx = Bitmap.boxFactor(region.width / Double(size.width))
        let fy = Bitmap.boxFactor(region.height / Double(size.height))
        guard fx > 1 || fy > 1 else { return filtered(from: region, to: size, bands: bands) }
        let x0 = max(0, Int(region.x.rounded(.down)))
        let y0 = max(0, Int(region.y.rounded(.down)))
        let x1 = min(width, max(x0 + 1, Int((region.x + region.width).rounded(.up))))
        let y1 = min(height, max(y0 + 1, Int((region.y + region.height).rounded(.up))))
        let shrunk = boxShrunk(by: fx, fy, x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let shrunkRegion = ResamplingRegion(
            x: (region.x - Double(x0)) / Double(fx), y: (region.y - Double(y0)) / Double(fy),
            width: region.width / Double(fx), height: region.height / Double(fy))
        return shrunk.filtered(from: shrunkRegion, to: size, bands: bands)
    }

    /// The box factor for a reduction by `ratio`: about half of it, so the filter still has work.
    static func boxFactor(_ ratio: Double) -> Int {
        min(maximumBoxFactor, max(1, Int(ratio / 2)))
    }

    private func filtered(from region: ResamplingRegion, to size: PixelSize, bands: Int?) -> Bitmap {
        if size == self.size && region == ResamplingRegion(x: 0, y: 0, width: Double(width), height: Double(height)) {
            return self
        }
        // The C side indexes a row's floats (4 a pixel) and rows with 32-bit integers.
        precondition(width < 1 << 29 && height <= Int(Int32.max) && size.width < 1 << 29 && size.height <= Int(Int32.max),
                     "bitmap too large to resample")
        let horizontal = FilterTaps(source: width, start: region.x, length: region.width, destination: size.width)
        let vertical = FilterTaps(source: height, start: region.y, length: region.height, destination: size.height)
        let span = horizontal.sourceSpan
        let bands = min(size.height, max(1, bands ?? Bitmap.resamplingBands(size)))
        return Bitmap(width: size.width, height: size.height) { out in
            pixels.withUnsafeBufferPointer { src in
                horizontal.withAxis { h in
                    vertical.withAxis { v in
                        // Bands share only this plan, which nothing writes, and the buffers it points
                        // into, which outlive concurrentPerform; each band writes only its own
                        // destination rows and filters the source rows it needs itself.
                        nonisolated(unsafe) let plan = wi_resample_plan(
                            source: src.baseAddress!, source_bytes_per_row: bytesPerRow,
                            span_start: Int32(span.lowerBound), span_count: Int32(span.count),
                            horizontal: h, vertical: v,
                            destination: out.baseAddress!, destination_bytes_per_row: size.width * 4)
                        let rows = size.height
                        let band = { @Sendable (index: Int) in
                            withUnsafePointer(to: plan) { plan in
                                let scratch = UnsafeMutableRawPointer.allocate(byteCount: wi_resample_scratch_bytes(plan), alignment: 64)
                                defer { scratch.deallocate() }
                                wi_resample_rows(plan, Int32(rows * index / bands), Int32(rows * (index + 1) / bands), scratch)
                            }
                        }
                        if bands == 1 { band(0) } else { DispatchQueue.concurrentPerform(iterations: bands, execute: band) }
                    }
                }
            }
        }
    }

    /// Destination rows are made in this many bands at once: one below a megapixel (a hand-off
    /// costs more than it saves, and a busy server's thumbnails stay on the thread that asked) or
    /// on one core, else a few per core so a core that falls behind is not waited on.
    static func resamplingBands(_ size: PixelSize) -> Int {
        let cores = ImageWorkQueue.defaultWidth
        guard size.width * size.height >= 1 << 20, cores > 1 else { return 1 }
        return max(1, min(4 * cores, size.height / 64))
    }
}

/// A part of a bitmap in source pixels; fractions allowed (an aspect-fill crop rarely lands on
/// whole pixels).
struct ResamplingRegion: Sendable, Hashable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
}

/// Precomputed filter taps for one axis: for each destination index, the first source index,
/// the number of taps and their normalised weights.
private struct FilterTaps {
    var starts: [Int32]
    var counts: [Int32]
    var weights: [Float]
    var stride: Int
    var maxCount: Int

    /// Taps mapping `length` source pixels from `start` onto `destination` pixels; `source` is the
    /// number of source pixels that exist (taps are clipped to them and renormalised).
    init(source: Int, start: Double, length: Double, destination: Int) {
        let scale = length / Double(destination)
        let filterScale = max(scale, 1)
        let support = FilterTaps.lanczosRadius * filterScale  // Lanczos-3 reaches ±3 input pixels at unit scale
        stride = Int(support.rounded(.up)) * 2 + 3
        starts = [Int32](repeating: 0, count: destination)
        counts = [Int32](repeating: 0, count: destination)
        weights = [Float](repeating: 0, count: destination * stride)
        maxCount = 1
        var taps: [Double] = []
        for i in 0..<destination {
            let center = start + (Double(i) + 0.5) * scale
            // Windows only move forward (leading zero taps are kept): the streaming vertical pass
            // relies on it.
            let lo = min(source - 1, max(0, Int((center - support).rounded(.down))))
            let hi = max(lo + 1, min(source, Int((center + support).rounded(.up))))
            taps.removeAll(keepingCapacity: true)
            var total = 0.0
            for j in lo..<hi {
                let w = FilterTaps.lanczos((Double(j) + 0.5 - center) / filterScale)
                taps.append(w)
                total += w
            }
            var last = taps.count - 1
            while last > 0, taps[last] == 0 { last -= 1 }
            let count = min(stride, last + 1)
            starts[i] = Int32(lo)
            counts[i] = Int32(count)
            maxCount = max(maxCount, count)
            let norm = total == 0 ? 1 : total
            for k in 0..<count { weights[i * stride + k] = Float(total == 0 ? (k == 0 ? 1 : 0) : taps[k] / norm) }
        }
    }

    /// The source columns any tap reads.
    var sourceSpan: Range<Int> {
        var end = 0
        for i in starts.indices { end = max(end, Int(starts[i] + counts[i])) }
        return Int(starts[0])..<end
    }

    /// The taps as the C filter reads them, valid inside `body`.
    func withAxis<R>(_ body: (wi_resample_axis) -> R) -> R {
        starts.withUnsafeBufferPointer { starts in
            counts.withUnsafeBufferPointer { counts in
                weights.withUnsafeBufferPointer { weights in
                    body(wi_resample_axis(
                        starts: starts.baseAddress!, counts: counts.baseAddress!, weights: weights.baseAddress!,
                        stride: Int32(stride), destination: Int32(starts.count), max_count: Int32(maxCount)))
                }
            }
        }
    }

    static let lanczosRadius = 3.0

    /// sinc(x)·sinc(x/3) on [-3, 3), as Pillow's LANCZOS.
    static func lanczos(_ x: Double) -> Double {
        guard -lanczosRadius <= x && x < lanczosRadius else { return 0 }
        return sinc(x) * sinc(x / lanczosRadius)
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }
}
