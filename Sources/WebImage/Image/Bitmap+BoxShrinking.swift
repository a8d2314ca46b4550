extension Bitmap {
    /// The largest block size ``boxShrunk(by:_:)`` takes: 256 × 256 alpha-weighted sums still fit
    /// in 32 bits (65025 × 65536 < 2³²).
    static let maximumBoxFactor = 256

    /// Averages each `fx` × `fy` block into one pixel (edge blocks average what they cover).
    ///
    /// A cheap first step for big reductions: the bicubic filter then only has to cover a factor
    /// of two or so instead of touching dozens of taps per output pixel (libvips and Pillow's
    /// `reducing_gap` do the same). Colour is averaged weighted by alpha.
    func boxShrunk(by fx: Int, _ fy: Int) -> Bitmap {
        boxShrunk(by: fx, fy, x: 0, y: 0, width: width, height: height)
    }

    /// ``boxShrunk(by:_:)`` of the `width` × `height` part at (x, y) only, so a crop needs no copy.
    func boxShrunk(by fx: Int, _ fy: Int, x: Int, y: Int, width w: Int, height h: Int) -> Bitmap {
        precondition(fx >= 1 && fy >= 1 && fx <= Bitmap.maximumBoxFactor && fy <= Bitmap.maximumBoxFactor,
                     "shrink factors are 1...\(Bitmap.maximumBoxFactor)")
        precondition(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= width && y + h <= height, "region out of bounds")
        if fx == 1 && fy == 1 && x == 0 && y == 0 && w == width && h == height { return self }
        let outWidth = (w + fx - 1) / fx
        let outHeight = (h + fy - 1) / fy
        let stride = bytesPerRow
        // Plain per-channel column sums of one band of `fy` rows (≤ 256 × 255 fits 16 bits): a
        // loop over bytes that vectorises. Blocks whose alpha sum says "all opaque" are done from
        // these; the rest are summed again weighted by alpha. So no transparency scan is needed.
        var columnSums = [UInt16](repeating: 0, count: w * 4)
        return Bitmap(width: outWidth, height: outHeight) { out in
            pixels.withUnsafeBufferPointer { src in
                columnSums.withUnsafeMutableBufferPointer { sums in
                    for oy in 0..<outHeight {
                        let y0 = y + oy * fy
                        let y1 = min(y + h, y0 + fy)
                        sums.update(repeating: 0)
                        for sy in y0..<y1 {
                            let row = src.baseAddress! + sy * stride + x * 4
                            for i in 0..<(w * 4) { sums[i] &+= UInt16(row[i]) }
                        }
                        let dst = UnsafeMutableRawPointer(out.baseAddress! + oy * outWidth * 4)
                        let rows = UInt32(y1 - y0)
                        for ox in 0..<outWidth {
                            let first = ox * fx
                            let last = min(w, first + fx)
                            var sum = SIMD4<UInt32>.zero
                            for sx in first..<last {
                                let i = sx * 4
                                sum &+= SIMD4(UInt32(sums[i]), UInt32(sums[i + 1]), UInt32(sums[i + 2]), UInt32(sums[i + 3]))
                            }
                            let count = UInt32(last - first) * rows
                            var pixel: SIMD4<UInt32>
                            if sum.w == 255 * count {
                                pixel = (sum &+ count / 2) / SIMD4(repeating: count)
                            } else {
                                // Colour weighted by alpha (Σ c·a / Σ a), so transparent pixels'
                                // colour does not leak into the average.
                                var weighted = SIMD4<UInt32>.zero
                                for sy in y0..<y1 {
                                    let row = UnsafeRawPointer(src.baseAddress! + sy * stride + (x + first) * 4)
                                    for k in 0..<(last - first) {
                                        let p = SIMD4<UInt32>(truncatingIfNeeded: row.loadUnaligned(fromByteOffset: k * 4, as: SIMD4<UInt8>.self))
                                        weighted &+= p &* SIMD4(p.w, p.w, p.w, 1)
                                    }
                                }
                                let alphaSum = weighted.w
                                pixel = alphaSum == 0 ? .zero : (weighted &+ alphaSum / 2) / SIMD4(repeating: alphaSum)
                                pixel.w = (alphaSum + count / 2) / count
                            }
                            dst.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: pixel), toByteOffset: ox * 4, as: SIMD4<UInt8>.self)
                        }
                    }
                }
            }
        }
    }
}
