/// Exact pixel permutations: flips, quarter turns and EXIF orientations. No resampling, so every
/// pixel keeps its value.
extension Bitmap {
    /// The pixels turned upright for display, as EXIF `orientation` says (the result is `.up`).
    public func oriented(_ orientation: ImageOrientation) -> Bitmap {
        let w = width, h = height
        switch orientation {
        case .up: return self
        case .upMirrored: return flipped(horizontally: true, vertically: false)
        case .down: return flipped(horizontally: true, vertically: true)
        case .downMirrored: return flipped(horizontally: false, vertically: true)
        // For a quarter turn the output is h × w; each closure maps an output pixel to its source.
        case .leftMirrored: return remapped(width: h, height: w) { x, y in (y, x) }  // transpose
        case .right: return remapped(width: h, height: w) { x, y in (y, h - 1 - x) }  // 90° clockwise
        case .rightMirrored: return remapped(width: h, height: w) { x, y in (w - 1 - y, h - 1 - x) }  // transverse
        case .left: return remapped(width: h, height: w) { x, y in (w - 1 - y, x) }  // 90° counterclockwise
        }
    }

    /// The bitmap mirrored left-right and/or top-bottom.
    public func flipped(horizontally: Bool, vertically: Bool) -> Bitmap {
        if !horizontally && !vertically { return self }
        let w = width, h = height
        if !horizontally {
            // Whole rows move: copy them instead of pixels.
            return Bitmap(width: w, height: h) { out in
                pixels.withUnsafeBufferPointer { src in
                    for y in 0..<h {
                        let from = src.baseAddress! + (h - 1 - y) * bytesPerRow
                        (out.baseAddress! + y * bytesPerRow).update(from: from, count: bytesPerRow)
                    }
                }
            }
        }
        return remapped(width: w, height: h) { x, y in (w - 1 - x, vertically ? h - 1 - y : y) }
    }

    /// A `width` × `height` bitmap whose pixel (x, y) is this bitmap's pixel `source(x, y)`.
    private func remapped(width: Int, height: Int, source: (Int, Int) -> (Int, Int)) -> Bitmap {
        let sourceWidth = self.width
        return Bitmap(width: width, height: height) { out in
            pixels.withUnsafeBytes { src in
                // Whole pixels as UInt32: one load and one store each instead of four.
                let dst = UnsafeMutableRawBufferPointer(out)
                for y in 0..<height {
                    for x in 0..<width {
                        let (sx, sy) = source(x, y)
                        let pixel = src.loadUnaligned(fromByteOffset: (sy * sourceWidth + sx) * 4, as: UInt32.self)
                        dst.storeBytes(of: pixel, toByteOffset: (y * width + x) * 4, as: UInt32.self)
                    }
                }
            }
        }
    }
}
