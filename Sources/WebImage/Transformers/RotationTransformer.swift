import Foundation

/// Rotates images by any angle, SDWebImage's `SDImageRotationTransformer`
/// (`sd_rotatedImageWithAngle:fitSize:`).
///
/// ``angle`` is in radians, counterclockwise as seen on screen (SD's ⟲). With ``fitSize`` the canvas
/// grows to the rotated image's bounding box (rounded up to whole pixels); without it the canvas
/// keeps the image's size and the corners that turn out of it are cut. Uncovered canvas is
/// transparent. Pixels are sampled bilinearly on premultiplied colour, so rotated edges are
/// antialiased and transparent neighbours do not tint them; multiples of 90° are exact.
/// Works on the upright image (EXIF orientation applied).
public struct RotationTransformer: ImageTransformer, Hashable {
    public let angle: Double
    public let fitSize: Bool

    public init(angle: Double, fitSize: Bool) {
        self.angle = angle
        self.fitSize = fitSize
    }

    public var transformerKey: String {
        "RotationTransformer(\(TransformedCacheKeys.format(angle)),\(fitSize ? 1 : 0))"
    }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard angle.isFinite else { return nil }
        return image.transformingUprightFrames { $0.rotated(by: angle, fitSize: fitSize) }
    }
}

extension Bitmap {
    /// The canvas size for rotating a `size` image by `angle` radians with `fitSize`
    /// (see ``RotationTransformer``).
    public static func rotatedSize(_ size: PixelSize, angle: Double, fitSize: Bool) -> PixelSize {
        guard fitSize else { return size }
        let (c, s) = snappedCosSin(angle)
        let w = Double(size.width), h = Double(size.height)
        // Rounded to a micro-pixel first, so 90° of a 3×2 image is 2×3 and not 3×4.
        let fit = { (v: Double) in max(1, Int(((v * 1e6).rounded() / 1e6).rounded(.up))) }
        return PixelSize(width: fit(abs(w * c) + abs(h * s)), height: fit(abs(w * s) + abs(h * c)))
    }

    /// This bitmap rotated counterclockwise by `angle` radians (see ``RotationTransformer``).
    public func rotated(by angle: Double, fitSize: Bool) -> Bitmap {
        let size = Bitmap.rotatedSize(self.size, angle: angle, fitSize: fitSize)
        let (c, s) = Bitmap.snappedCosSin(angle)
        if c == 1 && size == self.size { return self }
        let sourceCentre = (x: Double(width) / 2, y: Double(height) / 2)
        let centre = (x: Double(size.width) / 2, y: Double(size.height) / 2)
        let w = width, h = height, stride = bytesPerRow
        return Bitmap(width: size.width, height: size.height) { out in
            pixels.withUnsafeBytes { src in
                // Premultiplied pixel (x, y) of the source, transparent outside it.
                func fetch(_ x: Int, _ y: Int) -> SIMD4<Float> {
                    guard x >= 0, y >= 0, x < w, y < h else { return .zero }
                    return Bitmap.premultiplied(src.loadUnaligned(fromByteOffset: y * stride + x * 4, as: SIMD4<UInt8>.self))
                }
                let dst = UnsafeMutableRawPointer(out.baseAddress!)
                for y in 0..<size.height {
                    for x in 0..<size.width {
                        // Inverse rotation of the output pixel's centre into the source (y down:
                        // counterclockwise on screen is clockwise in these coordinates).
                        let dx = Double(x) + 0.5 - centre.x, dy = Double(y) + 0.5 - centre.y
                        let u = dx * c - dy * s + sourceCentre.x - 0.5
                        let v = dx * s + dy * c + sourceCentre.y - 0.5
                        let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
                        let fx = Float(u - Double(x0)), fy = Float(v - Double(y0))
                        var p = fetch(x0, y0) * ((1 - fx) * (1 - fy))
                        if fx > 0 { p += fetch(x0 + 1, y0) * (fx * (1 - fy)) }
                        if fy > 0 { p += fetch(x0, y0 + 1) * ((1 - fx) * fy) }
                        if fx > 0 && fy > 0 { p += fetch(x0 + 1, y0 + 1) * (fx * fy) }
                        dst.storeBytes(of: Bitmap.straightBytes(p), toByteOffset: (y * size.width + x) * 4, as: SIMD4<UInt8>.self)
                    }
                }
            }
        }
    }

    /// cos and sin of `angle`, with values within 1e-12 of 0 or ±1 made exact so quarter turns
    /// land on pixel centres.
    static func snappedCosSin(_ angle: Double) -> (Double, Double) {
        func snap(_ v: Double) -> Double {
            for exact in [-1.0, 0, 1] where abs(v - exact) < 1e-12 { return exact }
            return v
        }
        return (snap(cos(angle)), snap(sin(angle)))
    }
}
