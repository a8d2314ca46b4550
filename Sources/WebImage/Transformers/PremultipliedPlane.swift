/// A bitmap as premultiplied floats (colour·a/255, a; 0...255), for filters that mix neighbouring
/// pixels: 16 bytes a pixel, so it lives only for the length of one filter.
struct PremultipliedPlane {
    let width: Int
    let height: Int
    var pixels: [SIMD4<Float>]

    init(_ bitmap: Bitmap) {
        width = bitmap.width
        height = bitmap.height
        pixels = bitmap.pixels.withUnsafeBytes { src in
            (0..<(bitmap.width * bitmap.height)).map { i in
                Bitmap.premultiplied(src.loadUnaligned(fromByteOffset: i * 4, as: SIMD4<UInt8>.self))
            }
        }
    }

    /// Back to straight bytes, rounded.
    func bitmap() -> Bitmap {
        Bitmap(width: width, height: height) { out in
            let dst = UnsafeMutableRawPointer(out.baseAddress!)
            for i in pixels.indices {
                dst.storeBytes(of: Bitmap.straightBytes(pixels[i]), toByteOffset: i * 4, as: SIMD4<UInt8>.self)
            }
        }
    }

    /// Each row convolved with `kernel` (centred, odd length), edge pixels extended.
    mutating func convolveRows(_ kernel: [Float]) {
        let r = kernel.count / 2, w = width
        var row = [SIMD4<Float>](repeating: .zero, count: w)
        for y in 0..<height {
            let base = y * w
            for x in 0..<w { row[x] = pixels[base + x] }
            for x in 0..<w {
                var sum = SIMD4<Float>.zero
                for k in 0..<kernel.count { sum += row[min(w - 1, max(0, x + k - r))] * kernel[k] }
                pixels[base + x] = sum
            }
        }
    }

    /// Each column convolved with `kernel`, edge pixels extended; row by row, so memory is read in order.
    mutating func convolveColumns(_ kernel: [Float]) {
        let r = kernel.count / 2, w = width, h = height
        let source = pixels
        for y in 0..<h {
            let base = y * w
            for x in 0..<w { pixels[base + x] = .zero }
            for k in 0..<kernel.count {
                let from = min(h - 1, max(0, y + k - r)) * w
                let weight = kernel[k]
                for x in 0..<w { pixels[base + x] += source[from + x] * weight }
            }
        }
    }

    /// Each row replaced by its mean over a window of 2r + 1 (a box blur), edge pixels extended:
    /// a running sum, so the cost does not grow with r.
    mutating func convolveRows(box r: Int) {
        guard r > 0 else { return }
        let w = width, scale = 1 / Float(2 * r + 1)
        var row = [SIMD4<Float>](repeating: .zero, count: w)
        for y in 0..<height {
            let base = y * w
            for x in 0..<w { row[x] = pixels[base + x] }
            var sum = SIMD4<Float>.zero
            for i in -r...r { sum += row[min(w - 1, max(0, i))] }
            for x in 0..<w {
                pixels[base + x] = sum * scale
                sum += row[min(w - 1, x + r + 1)] - row[max(0, x - r)]
            }
        }
    }

    /// ``convolveRows(box:)`` down the columns, with one running sum per column.
    mutating func convolveColumns(box r: Int) {
        guard r > 0 else { return }
        let w = width, h = height, scale = 1 / Float(2 * r + 1)
        let source = pixels
        var sums = [SIMD4<Float>](repeating: .zero, count: w)
        for i in -r...r {
            let from = min(h - 1, max(0, i)) * w
            for x in 0..<w { sums[x] += source[from + x] }
        }
        for y in 0..<h {
            let base = y * w
            let entering = min(h - 1, y + r + 1) * w, leaving = max(0, y - r) * w
            for x in 0..<w {
                pixels[base + x] = sums[x] * scale
                sums[x] += source[entering + x] - source[leaving + x]
            }
        }
    }
}
