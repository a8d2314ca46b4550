import WebImage

/// thumbor's two ways of putting one picture on another, on straight RGBA8 rows: `paste` without
/// merge (PIL's `paste`: the top's pixels replace the bottom's) and with merge (`_composite.c`: the
/// top over the bottom, both alphas counted, worked in doubles and truncated as its C does, so the
/// bytes match thumbor's). Both clip to the bottom; a top partly or wholly outside draws what shows.
enum ThumborCompositing {
    /// The bottom's rows and size, drawn into in place.
    struct Canvas {
        var pixels: [UInt8]
        let width: Int
        let height: Int

        init(_ bitmap: Bitmap) {
            pixels = bitmap.pixels
            width = bitmap.width
            height = bitmap.height
        }

        /// A canvas of one colour.
        init(size: PixelSize, color: RGBA) {
            width = size.width
            height = size.height
            pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
            guard color != RGBA(r: 0, g: 0, b: 0, a: 0) else { return }
            var index = 0
            while index < pixels.count {
                pixels[index] = color.r
                pixels[index + 1] = color.g
                pixels[index + 2] = color.b
                pixels[index + 3] = color.a
                index += 4
            }
        }

        var bitmap: Bitmap { Bitmap(width: width, height: height, pixels: pixels) }

        /// The part of `top` placed at (x, y) that lies on this canvas: its rows in both, and columns.
        fileprivate func overlap(_ top: Bitmap, _ x: Int, _ y: Int) -> (rows: Range<Int>, columns: Range<Int>)? {
            let x0 = max(0, x), y0 = max(0, y)
            let x1 = min(width, x.addingReportingOverflow(top.width).overflow ? width : x + top.width)
            let y1 = min(height, y.addingReportingOverflow(top.height).overflow ? height : y + top.height)
            guard x1 > x0, y1 > y0 else { return nil }
            return (y0..<y1, x0..<x1)
        }

        /// PIL's `paste` with no mask: `top`'s pixels, alpha included, replace these at (x, y).
        mutating func paste(_ top: Bitmap, at x: Int, _ y: Int) {
            guard let (rows, columns) = overlap(top, x, y) else { return }
            let count = columns.count * 4
            let width = self.width
            top.pixels.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { target in
                    for row in rows {
                        let from = ((row - y) * top.width + (columns.lowerBound - x)) * 4
                        let to = (row * width + columns.lowerBound) * 4
                        (target.baseAddress! + to).update(from: source.baseAddress! + from, count: count)
                    }
                }
            }
        }

        /// `_composite.apply` with merge: `top` over these pixels at (x, y). `alpha` maps the top's
        /// alpha first (a watermark's `alpha` argument), when given.
        mutating func merge(_ top: Bitmap, at x: Int, _ y: Int, alpha: [UInt8]? = nil) {
            guard let (rows, columns) = overlap(top, x, y) else { return }
            let width = self.width
            top.pixels.withUnsafeBufferPointer { source in
                pixels.withUnsafeMutableBufferPointer { target in
                    for row in rows {
                        var from = ((row - y) * top.width + (columns.lowerBound - x)) * 4
                        var to = (row * width + columns.lowerBound) * 4
                        for _ in columns {
                            let a = alpha?[Int(source[from + 3])] ?? source[from + 3]
                            ThumborCompositing.merge(target.baseAddress! + to, source.baseAddress! + from, alpha: a)
                            from += 4
                            to += 4
                        }
                    }
                }
            }
        }
    }

    /// One pixel of `_composite.c`'s merge: `top` (its alpha `alpha`) over `bottom`, in place.
    @inline(__always)
    static func merge(_ bottom: UnsafeMutablePointer<UInt8>, _ top: UnsafePointer<UInt8>, alpha: UInt8) {
        // The C works in transparencies (255 − alpha).
        let t1 = 255 - Int(bottom[3]), t2 = 255 - Int(alpha)
        if t2 == 255, t1 == 0 { return }  // a clear pixel on an opaque one changes nothing
        if t2 == 0 {
            bottom[0] = top[0]; bottom[1] = top[1]; bottom[2] = top[2]; bottom[3] = 255
            return
        }
        let f1 = Double(t1) / 255, f2 = Double(t2) / 255
        var delta = f2 * f1
        let a = 255 * delta
        delta = 1 - delta
        delta = delta <= 1.0e-12 ? 1 : 1 / delta
        for channel in 0..<3 {
            let value = delta * ((1 - f2) * Double(top[channel]) + (1 - f1) * Double(bottom[channel]) * f2)
            bottom[channel] = byte(value)
        }
        bottom[3] = byte(255 - a)
    }

    /// `ADJUST_COLOR_DOUBLE`: clamped to 0...255, then truncated.
    @inline(__always)
    static func byte(_ value: Double) -> UInt8 {
        value >= 255 ? 255 : value > 0 ? UInt8(value) : 0
    }

    /// Python's `a // b` for a positive `b`: rounds towards −∞ (a centred paste of a larger image).
    static func floorDivide(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
