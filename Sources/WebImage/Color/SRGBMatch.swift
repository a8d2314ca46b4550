import CLCMS2
import Foundation

/// Whether a matrix/TRC profile is sRGB under another name: most "sRGB IEC61966-2.1" profiles
/// differ in bytes (versions, tags, descriptions) but not in meaning, and converting them would
/// cost time for ±1 of rounding. Compared on the colorants (D50-adapted, as ICC stores them) and
/// the tone curves.
enum SRGBMatch {
    /// sRGB's primaries adapted to D50 with Bradford, as sRGB ICC profiles store them.
    private static let colorants: [(cmsTagSignature, (Double, Double, Double))] = [
        (cmsSigRedColorantTag, (0.4361, 0.2225, 0.0139)),
        (cmsSigGreenColorantTag, (0.3851, 0.7169, 0.0971)),
        (cmsSigBlueColorantTag, (0.1431, 0.0606, 0.7141)),
    ]
    private static let curves = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]

    static func matches(_ profile: cmsHPROFILE) -> Bool {
        guard cmsIsMatrixShaper(profile) != 0 else { return false }
        for (tag, expected) in colorants {
            guard let raw = cmsReadTag(profile, tag) else { return false }
            let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            // 0.003: profiles round these differently (0.4360747 vs 0.4361), and a gamut this
            // close converts to within one level anyway.
            if abs(xyz.X - expected.0) > 0.003 || abs(xyz.Y - expected.1) > 0.003 || abs(xyz.Z - expected.2) > 0.003 {
                return false
            }
        }
        for tag in curves {
            guard let raw = cmsReadTag(profile, tag) else { return false }
            let curve = OpaquePointer(raw)
            // Half a level of 8-bit output anywhere: gamma 2.2 is 1 to 2 levels off and converts.
            for step in 0...32 {
                let x = Double(step) / 32
                if abs(Double(cmsEvalToneCurveFloat(curve, Float(x))) - srgbToLinear(x)) > 0.002 { return false }
            }
        }
        return true
    }

    static func srgbToLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }
}
