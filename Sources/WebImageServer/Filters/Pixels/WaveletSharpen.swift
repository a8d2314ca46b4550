import Foundation
import WebImage

/// thumbor's `sharpen(amount,radius,luminance_only)` (`ext/filters/lib/wavelet_sharpen.c`, after
/// Marco Rossini's GIMP plugin): each channel (or only the luma, Y of YCbCr) is split into five
/// levels of detail by an à-trous "hat" wavelet; level `l`'s detail is amplified by
/// `1 + amount × e^(−(l − radius)² / 1.5)` and the levels are summed again. Single-precision floats,
/// the C code's order of operations. Edges mirror, as the C code's do; on a side shorter than 32
/// pixels its mirror reads outside the image, so there the nearest edge pixel stands in.
struct SharpenTransformer: ImageTransformer {
    let amount: Double
    let radius: Double
    let luminanceOnly: Bool

    /// Columns gathered together for the vertical passes, so they read whole cache lines.
    private static let columnBlock = 16
    static let levels = 5

    var transformerKey: String { "Sharpen(\(amount),\(radius),\(luminanceOnly))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.rewritingPixels { pixels, width, height in
            guard width > 0, height > 0 else { return }
            let area = width * height
            var planes = [Float](repeating: 0, count: 3 * area)
            var block = [Float](repeating: 0, count: Self.columnBlock * height)
            planes.withUnsafeMutableBufferPointer { planes in
                block.withUnsafeMutableBufferPointer { block in
                    guard let base = planes.baseAddress, let block = block.baseAddress else { return }
                    let f = [base, base + area, base + 2 * area]
                    if luminanceOnly {
                        for i in 0..<area { f[0][i] = Self.ycbcr(pixels, i).y / 255 }
                        sharpen(f, width: width, height: height, block: block)
                        for i in 0..<area {
                            let (_, cb, cr) = Self.ycbcr(pixels, i)
                            let (r, g, b) = Self.rgb(y: f[0][i] * 255, cb: cb / 255 * 255, cr: cr / 255 * 255)
                            pixels[4 * i] = Self.channel(r)
                            pixels[4 * i + 1] = Self.channel(g)
                            pixels[4 * i + 2] = Self.channel(b)
                        }
                    } else {
                        for channel in 0..<3 {
                            for i in 0..<area { f[0][i] = Float(pixels[4 * i + channel]) / 255 }
                            sharpen(f, width: width, height: height, block: block)
                            for i in 0..<area { pixels[4 * i + channel] = Self.channel(f[0][i] * 255) }
                        }
                    }
                }
            }
        }
    }

    /// The C code's `wavelet_sharpen` on plane `f[0]`, with `f[1]` and `f[2]` as the low passes.
    private func sharpen(_ f: [UnsafeMutablePointer<Float>], width: Int, height: Int, block: UnsafeMutablePointer<Float>) {
        let area = width * height
        var high = 0
        var low = 0
        for level in 0..<Self.levels {
            low = (level & 1) + 1
            let step = 1 << level
            for row in 0..<height {
                Self.hat(f[high] + row * width, into: f[low] + row * width, count: width, step: step)
            }
            hatColumns(f[low], width: width, height: height, step: step, block: block)
            let distance = Double(level) - radius
            let gain = Float(amount * exp(-distance * distance / 1.5) + 1)
            let (h, l, sum) = (f[high], f[low], f[0])
            for i in 0..<area {
                h[i] -= l[i]
                h[i] *= gain
                if high != 0 { sum[i] += h[i] }
            }
            high = low
        }
        let (sum, l) = (f[0], f[low])
        for i in 0..<area { sum[i] = sum[i] + l[i] }
    }

    /// One row of the hat transform: `(2 c + left + right) / 4` with neighbours `step` away, mirrored at the ends.
    private static func hat(_ source: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>, count: Int, step: Int) {
        let inner = step..<max(step, count - step)
        for i in 0..<count where !inner.contains(i) {
            output[i] = (2 * source[i] + source[mirror(i - step, count)] + source[mirror(i + step, count)]) * 0.25
        }
        for i in inner {
            output[i] = (2 * source[i] + source[i - step] + source[i + step]) * 0.25
        }
    }

    /// The hat transform down every column of `plane`, in place, a block of columns at a time.
    private func hatColumns(_ plane: UnsafeMutablePointer<Float>, width: Int, height: Int, step: Int,
                            block: UnsafeMutablePointer<Float>) {
        let size = Self.columnBlock
        for first in stride(from: 0, to: width, by: size) {
            let count = min(size, width - first)
            for row in 0..<height {
                (block + row * size).update(from: plane + row * width + first, count: count)
            }
            for row in 0..<height {
                let (up, down) = (Self.mirror(row - step, height) * size, Self.mirror(row + step, height) * size)
                let (center, output) = (row * size, plane + row * width + first)
                for k in 0..<count {
                    output[k] = (2 * block[center + k] + block[up + k] + block[down + k]) * 0.25
                }
            }
        }
    }

    /// Index `i` mirrored into `0..<count` as the C code mirrors it, then clamped into it.
    @inline(__always)
    private static func mirror(_ i: Int, _ count: Int) -> Int {
        let mirrored = i < 0 ? -i : (i >= count ? 2 * count - 2 - i : i)
        return min(max(mirrored, 0), count - 1)
    }

    /// JPEG's YCbCr of pixel `i`, in the C code's floats (`lib/colors.c`).
    @inline(__always)
    private static func ycbcr(_ pixels: UnsafeMutableBufferPointer<UInt8>, _ i: Int) -> (y: Float, cb: Float, cr: Float) {
        let (r, g, b) = (Float(pixels[4 * i]), Float(pixels[4 * i + 1]), Float(pixels[4 * i + 2]))
        let y: Float = 0.2990 * r + 0.5870 * g + 0.1140 * b
        let cb: Float = -0.1687 * r - 0.3313 * g + 0.5000 * b + 128
        let cr: Float = 0.5000 * r - 0.4187 * g - 0.0813 * b + 128
        return (y, cb, cr)
    }

    @inline(__always)
    private static func rgb(y: Float, cb: Float, cr: Float) -> (Float, Float, Float) {
        let r: Float = y + 1.40200 * (cr - 128)
        let g: Float = y - 0.34414 * (cb - 128) - 0.71414 * (cr - 128)
        let b: Float = y + 1.77200 * (cb - 128)
        return (r, g, b)
    }

    /// The C code's clamp, then its store to a byte (truncated; NaN as x86 makes it, 0).
    @inline(__always)
    private static func channel(_ value: Float) -> UInt8 {
        guard value == value else { return 0 }
        return value > 255 ? 255 : (value < 0 ? 0 : UInt8(value))
    }
}
