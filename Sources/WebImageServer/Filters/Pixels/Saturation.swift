import WebImage

/// thumbor's `saturation(change)` (`ext/filters/_saturation.c`): each channel moved away from the
/// pixel's perceived brightness `p = √(0.299 r² + 0.587 g² + 0.114 b²)` by `change`
/// (`c' = p + (c − p) × change`), in the C code's single-precision floats, truncated and clamped.
struct SaturationTransformer: ImageTransformer {
    /// 0 is grey, 1 the identity, above 1 more saturated.
    let change: Float

    var transformerKey: String { "Saturation(\(change))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        let change = change
        return image.rewritingPixels { pixels, _, _ in
            var i = 0
            while i + 3 < pixels.count {
                let (r, g, b) = (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
                let sum = Double(r * r) * 0.299 + Double(g * g) * 0.587 + Double(b * b) * 0.114
                let p = Float(sum.squareRoot())
                pixels[i] = Self.channel(p + (Float(r) - p) * change)
                pixels[i + 1] = Self.channel(p + (Float(g) - p) * change)
                pixels[i + 2] = Self.channel(p + (Float(b) - p) * change)
                i += 4
            }
        }
    }

    /// The float stored to an `int` (truncated) and clamped: the same as clamping first.
    @inline(__always)
    private static func channel(_ value: Float) -> UInt8 {
        guard value == value else { return 0 }
        return value >= 255 ? 255 : (value <= 0 ? 0 : UInt8(value))
    }
}
