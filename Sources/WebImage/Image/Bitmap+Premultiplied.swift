/// Premultiplied float pixels for filters that mix neighbours (resampling, rotation, blur, round
/// corners): colour·a/255 and a, all in 0...255, so a transparent pixel contributes nothing.
extension Bitmap {
    /// A straight pixel as premultiplied floats (colour·a/255, a); an opaque pixel's bytes unchanged.
    /// Lane by lane: Swift's generic SIMD conversions are not inlined and cost more than a filter.
    @inline(__always)
    static func premultiplied(_ b: SIMD4<UInt8>) -> SIMD4<Float> {
        // A multiply, not a division (this runs once per source pixel); exactly 1 when opaque.
        let k: Float = b.w == 255 ? 1 : Float(b.w) * (1 / 255)
        return SIMD4(Float(b.x) * k, Float(b.y) * k, Float(b.z) * k, Float(b.w))
    }

    /// A premultiplied float pixel (colour·a/255, a in 0...255) as straight bytes, rounded.
    @inline(__always)
    static func straightBytes(_ p: SIMD4<Float>) -> SIMD4<UInt8> {
        let alpha = clampToByte(p.w)
        guard alpha > 0 else { return .zero }
        let k = 255 / p.w
        return SIMD4(clampToByte(p.x * k), clampToByte(p.y * k), clampToByte(p.z * k), alpha)
    }

    /// A float in 0...255 rounded to a byte, clamped.
    @inline(__always)
    static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(max(0, min(255, value + 0.5)))
    }
}
