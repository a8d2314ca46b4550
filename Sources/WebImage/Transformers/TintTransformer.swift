/// Colours images, SDWebImage's `SDImageTintTransformer` (`sd_tintedImageWithColor:blendMode:`): the
/// image is drawn, then ``color`` is filled over it with ``blendMode``.
///
/// - ``BlendMode/sourceAtop`` (the default, SD's long-standing behaviour): the tint covers the
///   image's pixels in proportion to the tint's alpha and keeps the image's alpha; a fully opaque
///   tint turns every visible pixel into the tint colour, keeping the shape.
/// - ``BlendMode/sourceIn`` (SD 5.19's default): every pixel becomes the tint colour, with alpha =
///   image alpha × tint alpha.
///
/// A tint with zero alpha returns the image unchanged, as SD does. Works on stored pixels, so the
/// orientation is kept.
public struct TintTransformer: ImageTransformer, Hashable {
    /// Porter-Duff modes for the tint fill; raw values are CoreGraphics' `CGBlendMode`, which SD
    /// writes into its key.
    public enum BlendMode: Int, Sendable, Hashable {
        case sourceIn = 18
        case sourceAtop = 20
    }

    public let color: RGBA
    public let blendMode: BlendMode

    public init(color: RGBA, blendMode: BlendMode = .sourceAtop) {
        self.color = color
        self.blendMode = blendMode
    }

    public var transformerKey: String {
        "TintTransformer(\(color.hexString),\(blendMode.rawValue))"
    }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard color.a > 0 else { return image }
        return image.transformingFrames { $0.tinted(with: color, blendMode: blendMode) }
    }
}

extension Bitmap {
    /// This bitmap with `color` filled over it in `blendMode` (see ``TintTransformer``).
    public func tinted(with color: RGBA, blendMode: TintTransformer.BlendMode) -> Bitmap {
        let tintAlpha = Int(color.a)
        let tint = (Int(color.r), Int(color.g), Int(color.b))
        var result = self
        result.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                switch blendMode {
                case .sourceAtop where p[i + 3] == 0:
                    break  // nothing to cover: a transparent pixel keeps its (unseen) colour
                case .sourceAtop:
                    // Premultiplied S·Da + D·(1 − Sa) keeps alpha Da; in straight colour that is
                    // a plain mix of tint and image by the tint's alpha.
                    p[i] = UInt8((tint.0 * tintAlpha + Int(p[i]) * (255 - tintAlpha) + 127) / 255)
                    p[i + 1] = UInt8((tint.1 * tintAlpha + Int(p[i + 1]) * (255 - tintAlpha) + 127) / 255)
                    p[i + 2] = UInt8((tint.2 * tintAlpha + Int(p[i + 2]) * (255 - tintAlpha) + 127) / 255)
                case .sourceIn:
                    // S·Da: the tint's colour, alpha Sa·Da.
                    let alpha = (Int(p[i + 3]) * tintAlpha + 127) / 255
                    p[i] = alpha == 0 ? 0 : UInt8(tint.0)
                    p[i + 1] = alpha == 0 ? 0 : UInt8(tint.1)
                    p[i + 2] = alpha == 0 ? 0 : UInt8(tint.2)
                    p[i + 3] = UInt8(alpha)
                }
                i += 4
            }
        }
        return result
    }
}
