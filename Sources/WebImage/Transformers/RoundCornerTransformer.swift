/// Rounds the corners of images and optionally draws a border, SDWebImage's
/// `SDImageRoundCornerTransformer` (`sd_roundedCornerImageWithRadius:corners:borderWidth:borderColor:`).
///
/// The image keeps its size. Its outline is a rounded rectangle with ``cornerRadius`` at the
/// chosen ``corners`` (clamped to half the shorter side); a ``borderWidth`` band inside that outline
/// is painted with ``borderColor`` (or left transparent without one, as SD's clip leaves it), and
/// the image shows inside the band, its corners rounded concentrically (radius minus border).
/// Edges are antialiased by pixel coverage. Sizes are in pixels; works on the upright image.
///
/// SD strokes its border along a path inset by half a pixel more than the clip, which leaves a thin
/// transparent line outside the border; WebImage paints the band flush with the outline.
public struct RoundCornerTransformer: ImageTransformer, Hashable {
    public let cornerRadius: Double
    public let corners: RectCorner
    public let borderWidth: Double
    public let borderColor: RGBA?

    public init(cornerRadius: Double, corners: RectCorner = .allCorners, borderWidth: Double = 0, borderColor: RGBA? = nil) {
        self.cornerRadius = cornerRadius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    public var transformerKey: String {
        let f = TransformedCacheKeys.format
        return "RoundCornerTransformer(\(f(cornerRadius)),\(corners.rawValue),\(f(borderWidth)),\(borderColor?.hexString ?? "(null)"))"
    }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard cornerRadius.isFinite, borderWidth.isFinite else { return nil }
        return image.transformingUprightFrames {
            $0.roundingCorners(radius: cornerRadius, corners: corners, borderWidth: borderWidth, borderColor: borderColor)
        }
    }
}

/// Which corners of a rectangle, with UIKit's `UIRectCorner` bits (SD's `SDRectCorner`).
public struct RectCorner: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let topLeft = RectCorner(rawValue: 1 << 0)
    public static let topRight = RectCorner(rawValue: 1 << 1)
    public static let bottomLeft = RectCorner(rawValue: 1 << 2)
    public static let bottomRight = RectCorner(rawValue: 1 << 3)
    public static let allCorners: RectCorner = [.topLeft, .topRight, .bottomLeft, .bottomRight]
}

extension RGBA {
    /// `#aarrggbb`, lower case, as SD's `sd_hexString` writes colours into transformer keys.
    public var hexString: String {
        let value = UInt32(a) << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        let digits = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

extension Bitmap {
    /// This bitmap with rounded corners and a border band (see ``RoundCornerTransformer``).
    public func roundingCorners(radius: Double, corners: RectCorner, borderWidth: Double, borderColor: RGBA?) -> Bitmap {
        let w = Double(width), h = Double(height)
        let border = min(max(0, borderWidth), min(w, h) / 2)
        let outer = RoundedRect(left: 0, top: 0, right: w, bottom: h, radius: max(0, radius), corners: corners)
        let inner = RoundedRect(
            left: border, top: border, right: w - border, bottom: h - border,
            radius: max(0, outer.radius - border), corners: corners)
        let paint = borderColor.map { Bitmap.premultiplied(SIMD4($0.r, $0.g, $0.b, $0.a)) } ?? .zero
        // Only pixels near the edge can be affected: within the radius or the border of a side.
        let band = Int((max(outer.radius, border) + 1).rounded(.up))
        var result = self
        result.pixels.withUnsafeMutableBytes { px in
            for y in 0..<height {
                let nearTopOrBottom = y < band || y >= height - band
                var x = 0
                while x < width {
                    if !nearTopOrBottom && x == band && width - band > band {
                        x = width - band  // the middle of a middle row stays as it is
                        continue
                    }
                    let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                    let outside = outer.coverage(cx, cy), inside = inner.coverage(cx, cy)
                    if inside < 1 {
                        let offset = (y * width + x) * 4
                        let image = Bitmap.premultiplied(px.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
                        // Image inside the inner outline, paint in the band between the outlines.
                        let p = image * inside + paint * max(0, outside - inside)
                        px.storeBytes(of: Bitmap.straightBytes(p), toByteOffset: offset, as: SIMD4<UInt8>.self)
                    }
                    x += 1
                }
            }
        }
        return result
    }
}

/// A rectangle with some corners rounded, measured by signed distance for antialiased coverage.
private struct RoundedRect {
    var left, top, right, bottom: Double
    var radius: Double
    var corners: RectCorner

    init(left: Double, top: Double, right: Double, bottom: Double, radius: Double, corners: RectCorner) {
        self.left = left
        self.top = top
        self.right = max(left, right)
        self.bottom = max(top, bottom)
        self.radius = min(radius, (self.right - left) / 2, (self.bottom - top) / 2)
        self.corners = corners
    }

    /// How much of the pixel centred at (x, y) is inside, 0...1: one minus the signed distance to
    /// the outline plus half a pixel, which is exact for straight edges on pixel boundaries.
    func coverage(_ x: Double, _ y: Double) -> Float {
        guard right > left, bottom > top else { return 0 }
        let cx = (left + right) / 2, cy = (top + bottom) / 2
        let corner: RectCorner = x < cx ? (y < cy ? .topLeft : .bottomLeft) : (y < cy ? .topRight : .bottomRight)
        let r = corners.contains(corner) ? radius : 0
        let qx = abs(x - cx) - (right - left) / 2 + r
        let qy = abs(y - cy) - (bottom - top) / 2 + r
        let outsideLength = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        let distance = outsideLength + min(max(qx, qy), 0) - r
        return Float(min(1, max(0, 0.5 - distance)))
    }
}
