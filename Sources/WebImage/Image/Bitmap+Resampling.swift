/// Resampling with a separable Catmull-Rom (bicubic, a = -0.5) filter whose support widens with
/// the reduction factor, so downscaling averages every source pixel (no aliasing) — the filter
/// Pillow calls BICUBIC. Colour is filtered premultiplied, so transparent pixels do not bleed
/// their (meaningless) colour into visible ones.
extension Bitmap {
    /// This bitmap scaled to `size` (any direction, aspect not kept).
    public func resampled(to size: PixelSize) -> Bitmap {
        precondition(!size.isEmpty, "resampling to an empty size")
        if size == self.size { return self }
        // Big reductions: box-average down to about twice the target first (see boxShrunk).
        let fx = max(1, width / size.width / 2)
        let fy = max(1, height / size.height / 2)
        if fx > 1 || fy > 1 { return boxShrunk(by: fx, fy).filtered(to: size) }
        return filtered(to: size)
    }

    private func filtered(to size: PixelSize) -> Bitmap {
        if size == self.size { return self }
        let horizontal = FilterTaps(source: width, destination: size.width)
        let vertical = FilterTaps(source: height, destination: size.height)
        let premultiply = containsTransparency
        // Pass 1: rows of the source → rows `size.width` wide, as premultiplied floats.
        var wide = [Float](repeating: 0, count: size.width * height * 4)
        pixels.withUnsafeBufferPointer { src in
            wide.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = src.baseAddress! + y * bytesPerRow
                    let out = dst.baseAddress! + y * size.width * 4
                    for x in 0..<size.width {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        let start = horizontal.starts[x]
                        for k in 0..<horizontal.counts[x] {
                            let w = horizontal.weights[x * horizontal.stride + k]
                            let p = row + (start + k) * 4
                            let alpha = Float(p[3])
                            let m = premultiply ? w * alpha * (1 / 255) : w
                            r += Float(p[0]) * m
                            g += Float(p[1]) * m
                            b += Float(p[2]) * m
                            a += alpha * w
                        }
                        out[x * 4] = r
                        out[x * 4 + 1] = g
                        out[x * 4 + 2] = b
                        out[x * 4 + 3] = a
                    }
                }
            }
        }
        // Pass 2: columns → `size.height` rows, back to straight bytes.
        let rowFloats = size.width * 4
        return Bitmap(width: size.width, height: size.height) { out in
            wide.withUnsafeBufferPointer { src in
                var accumulator = [Float](repeating: 0, count: rowFloats)
                accumulator.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<size.height {
                        acc.update(repeating: 0)
                        let start = vertical.starts[y]
                        for k in 0..<vertical.counts[y] {
                            let w = vertical.weights[y * vertical.stride + k]
                            let row = src.baseAddress! + (start + k) * rowFloats
                            for i in 0..<rowFloats { acc[i] += row[i] * w }
                        }
                        let dst = out.baseAddress! + y * rowFloats
                        for x in 0..<size.width {
                            let a = acc[x * 4 + 3]
                            let alpha = Bitmap.clampToByte(a)
                            let unpremultiply: Float = premultiply ? (alpha == 0 ? 0 : 255 / a) : 1
                            dst[x * 4] = Bitmap.clampToByte(acc[x * 4] * unpremultiply)
                            dst[x * 4 + 1] = Bitmap.clampToByte(acc[x * 4 + 1] * unpremultiply)
                            dst[x * 4 + 2] = Bitmap.clampToByte(acc[x * 4 + 2] * unpremultiply)
                            dst[x * 4 + 3] = alpha
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value + 0.5)))
    }
}

/// Precomputed filter taps for one axis: for each destination index, the first source index,
/// the number of taps and their normalised weights.
private struct FilterTaps {
    var starts: [Int]
    var counts: [Int]
    var weights: [Float]
    var stride: Int

    init(source: Int, destination: Int) {
        let scale = Double(source) / Double(destination)
        let filterScale = max(scale, 1)
        let support = 2 * filterScale  // Catmull-Rom reaches ±2 input pixels at unit scale
        stride = Int(support.rounded(.up)) * 2 + 3
        starts = [Int](repeating: 0, count: destination)
        counts = [Int](repeating: 0, count: destination)
        weights = [Float](repeating: 0, count: destination * stride)
        for i in 0..<destination {
            let center = (Double(i) + 0.5) * scale
            let lo = max(0, Int((center - support).rounded(.down)))
            let hi = min(source, Int((center + support).rounded(.up)))
            var taps: [Double] = []
            var total = 0.0
            for j in lo..<hi {
                let w = FilterTaps.cubic((Double(j) + 0.5 - center) / filterScale)
                taps.append(w)
                total += w
            }
            // Drop zero-weight edges so every tap does work.
            var first = 0
            while first < taps.count - 1, taps[first] == 0 { first += 1 }
            var last = taps.count - 1
            while last > first, taps[last] == 0 { last -= 1 }
            starts[i] = lo + first
            counts[i] = min(stride, last - first + 1)
            let norm = total == 0 ? 1 : total
            for k in 0..<counts[i] { weights[i * stride + k] = Float(taps[first + k] / norm) }
        }
    }

    static func cubic(_ x: Double) -> Double {
        let a = -0.5
        let t = abs(x)
        if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
        if t < 2 { return (((t - 5) * t + 8) * t - 4) * a }
        return 0
    }
}
