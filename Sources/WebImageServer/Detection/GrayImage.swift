import WebImage

/// An 8-bit luminance image: what the detectors read. Made from an `Image` at a bounded size
/// (area-averaged, upright), so detection's scratch never grows with the source.
public struct GrayImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "pixel count does not match size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The first frame of `image`, upright, as luminance (ITU-R 601, as PIL's `L` and OpenCV's
    /// `RGB2GRAY`), area-averaged so its longer side is at most `longestSide`.
    public init(_ image: Image, longestSide: Int) {
        let bitmap = image.bitmap
        let upright = image.orientation.swapsDimensions ? (bitmap.height, bitmap.width) : (bitmap.width, bitmap.height)
        let scale = min(1, Double(max(1, longestSide)) / Double(max(1, max(upright.0, upright.1))))
        // Shrink in stored orientation (one pass over the pixels), then turn the small result.
        let storedWidth = max(1, Int((Double(bitmap.width) * scale).rounded()))
        let storedHeight = max(1, Int((Double(bitmap.height) * scale).rounded()))
        var stored = GrayImage.areaAveraged(bitmap, width: storedWidth, height: storedHeight)
        if bitmap.width == 0 || bitmap.height == 0 { stored = GrayImage(width: 0, height: 0, pixels: []) }
        self = stored.oriented(image.orientation)
    }

    private static func areaAveraged(_ bitmap: Bitmap, width: Int, height: Int) -> GrayImage {
        let (sw, sh) = (bitmap.width, bitmap.height)
        guard sw > 0, sh > 0 else { return GrayImage(width: 0, height: 0, pixels: []) }
        var out = [UInt8](repeating: 0, count: width * height)
        var columns = [UInt32](repeating: 0, count: sw)
        bitmap.pixels.withUnsafeBufferPointer { src in
            for oy in 0..<height {
                let y0 = oy * sh / height, y1 = max(y0 + 1, (oy + 1) * sh / height)
                for x in 0..<sw { columns[x] = 0 }
                for y in y0..<y1 {
                    var p = y * bitmap.bytesPerRow
                    for x in 0..<sw {
                        // PIL's L: fixed-point 601 weights, rounded.
                        let luma = (UInt32(src[p]) * 19595 + UInt32(src[p + 1]) * 38470 + UInt32(src[p + 2]) * 7471 + 0x8000) >> 16
                        columns[x] &+= luma
                        p += 4
                    }
                }
                for ox in 0..<width {
                    let x0 = ox * sw / width, x1 = max(x0 + 1, (ox + 1) * sw / width)
                    var sum: UInt32 = 0
                    for x in x0..<x1 { sum &+= columns[x] }
                    let count = UInt32((x1 - x0) * (y1 - y0))
                    out[oy * width + ox] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// This image turned as `orientation` says (stored → upright).
    func oriented(_ orientation: ImageOrientation) -> GrayImage {
        let (w, h) = (width, height)
        let map: (Int, Int) -> (Int, Int)
        switch orientation {
        case .up: return self
        case .upMirrored: map = { x, y in (w - 1 - x, y) }
        case .down: map = { x, y in (w - 1 - x, h - 1 - y) }
        case .downMirrored: map = { x, y in (x, h - 1 - y) }
        case .leftMirrored: map = { x, y in (y, x) }
        case .right: map = { x, y in (y, h - 1 - x) }
        case .rightMirrored: map = { x, y in (w - 1 - y, h - 1 - x) }
        case .left: map = { x, y in (w - 1 - y, x) }
        }
        let (ow, oh) = orientation.swapsDimensions ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            for x in 0..<ow {
                let (sx, sy) = map(x, y)
                out[y * ow + x] = pixels[sy * w + sx]
            }
        }
        return GrayImage(width: ow, height: oh, pixels: out)
    }

    /// A bilinear resize (OpenCV's `INTER_LINEAR` sampling: pixel centres aligned, edges clamped).
    func resized(width newWidth: Int, height newHeight: Int) -> GrayImage {
        guard newWidth != width || newHeight != height else { return self }
        var out = [UInt8](repeating: 0, count: newWidth * newHeight)
        let sx = Float(width) / Float(newWidth), sy = Float(height) / Float(newHeight)
        var x0s = [Int](repeating: 0, count: newWidth), fxs = [Float](repeating: 0, count: newWidth)
        for x in 0..<newWidth {
            let fx = max(0, (Float(x) + 0.5) * sx - 0.5)
            let ix = min(width - 1, Int(fx))
            x0s[x] = ix
            fxs[x] = ix == width - 1 ? 0 : fx - Float(ix)
        }
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<newHeight {
                    let fy = max(0, (Float(y) + 0.5) * sy - 0.5)
                    let iy = min(height - 1, Int(fy))
                    let wy = iy == height - 1 ? 0 : fy - Float(iy)
                    let row0 = iy * width, row1 = min(height - 1, iy + 1) * width
                    for x in 0..<newWidth {
                        let ix = x0s[x], wx = fxs[x], ix1 = min(width - 1, ix + 1)
                        let top = Float(src[row0 + ix]) * (1 - wx) + Float(src[row0 + ix1]) * wx
                        let bottom = Float(src[row1 + ix]) * (1 - wx) + Float(src[row1 + ix1]) * wx
                        dst[y * newWidth + x] = UInt8(min(255, (top * (1 - wy) + bottom * wy).rounded()))
                    }
                }
            }
        }
        return GrayImage(width: newWidth, height: newHeight, pixels: out)
    }

    /// The pixels inside `rect` (clamped to the image).
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> GrayImage {
        let left = max(0, min(x, width)), top = max(0, min(y, height))
        let right = max(left, min(x + w, width)), bottom = max(top, min(y + h, height))
        var out: [UInt8] = []
        out.reserveCapacity((right - left) * (bottom - top))
        for row in top..<bottom { out.append(contentsOf: pixels[(row * width + left)..<(row * width + right)]) }
        return GrayImage(width: right - left, height: bottom - top, pixels: out)
    }
}
