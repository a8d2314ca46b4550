extension Bitmap {
    /// Averages each `fx` × `fy` block into one pixel (edge blocks average what they cover).
    ///
    /// A cheap first step for big reductions: the bicubic filter then only has to cover a factor
    /// of two or so instead of touching dozens of taps per output pixel (libvips and Pillow's
    /// `reducing_gap` do the same). Colour is averaged weighted by alpha.
    func boxShrunk(by fx: Int, _ fy: Int) -> Bitmap {
        precondition(fx >= 1 && fy >= 1, "shrink factors start at 1")
        if fx == 1 && fy == 1 { return self }
        let outWidth = (width + fx - 1) / fx
        let outHeight = (height + fy - 1) / fy
        let weighted = containsTransparency
        var sums = [UInt64](repeating: 0, count: outWidth * 4)
        return Bitmap(width: outWidth, height: outHeight) { out in
            pixels.withUnsafeBufferPointer { src in
                sums.withUnsafeMutableBufferPointer { acc in
                    for oy in 0..<outHeight {
                        acc.update(repeating: 0)
                        let y0 = oy * fy
                        let y1 = min(height, y0 + fy)
                        for y in y0..<y1 {
                            let row = src.baseAddress! + y * bytesPerRow
                            for x in 0..<width {
                                let p = row + x * 4
                                let a = UInt64(p[3])
                                let w: UInt64 = weighted ? a : 1
                                let o = (x / fx) * 4
                                acc[o] += UInt64(p[0]) * w
                                acc[o + 1] += UInt64(p[1]) * w
                                acc[o + 2] += UInt64(p[2]) * w
                                acc[o + 3] += a
                            }
                        }
                        let dst = out.baseAddress! + oy * outWidth * 4
                        for ox in 0..<outWidth {
                            let count = UInt64((min(width, (ox + 1) * fx) - ox * fx) * (y1 - y0))
                            let o = ox * 4
                            let alphaSum = acc[o + 3]
                            let divisor = weighted ? alphaSum : count
                            if divisor == 0 {
                                dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0
                            } else {
                                dst[o] = UInt8((acc[o] + divisor / 2) / divisor)
                                dst[o + 1] = UInt8((acc[o + 1] + divisor / 2) / divisor)
                                dst[o + 2] = UInt8((acc[o + 2] + divisor / 2) / divisor)
                            }
                            dst[o + 3] = UInt8((alphaSum + count / 2) / count)
                        }
                    }
                }
            }
        }
    }
}
