import CWebImageResampling

extension Bitmap {
    /// The largest block size ``boxShrunk(by:_:)`` takes: 256 × 256 alpha-weighted sums still fit
    /// in 32 bits (65025 × 65536 < 2³²).
    static let maximumBoxFactor = 256

    /// Averages each `fx` × `fy` block into one pixel (edge blocks average what they cover).
    ///
    /// A cheap first step for big reductions: the Lanczos filter then only has to cover a factor
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
        precondition(w <= Int(Int32.max) && h <= Int(Int32.max), "bitmap too large to shrink")
        if fx == 1 && fy == 1 && x == 0 && y == 0 && w == width && h == height { return self }
        let outWidth = (w + fx - 1) / fx
        let outHeight = (h + fy - 1) / fy
        // One band's per-channel column sums (C: vectorised, blocks all opaque straight from these).
        var columnSums = [UInt16](repeating: 0, count: w * 4)
        return Bitmap(width: outWidth, height: outHeight) { out in
            pixels.withUnsafeBufferPointer { src in
                columnSums.withUnsafeMutableBufferPointer { sums in
                    wi_box_shrink(src.baseAddress! + y * bytesPerRow + x * 4, bytesPerRow, Int32(w), Int32(h),
                                  Int32(fx), Int32(fy), out.baseAddress!, sums.baseAddress!)
                }
            }
        }
    }
}
