import CLCMS2
import Foundation

/// The conversion for matrix/TRC profiles (Display P3, Adobe RGB, most camera and phone
/// profiles) done by table and matrix: each channel through its tone curve to linear light
/// (256-entry tables), a 3×3 matrix into sRGB's primaries (both sides' colorants are D50-adapted
/// in ICC, so no white-point step), then sRGB's curve (a 16,384-entry table, a fifth of a level
/// at the darkest). The same arithmetic Little CMS does for such a pair, faster: no per-pixel
/// format dispatch or fixed-point unpacking.
struct MatrixShaperTransform: Sendable {
    private let linear: [Float]  // 3 × 256: red, green, blue
    private let matrix: [Float]  // row-major 3 × 3, source linear RGB → sRGB linear RGB
    private let encode: [UInt8]

    private static let encodeSteps = 16_384

    /// nil when `profile` is not a matrix/TRC profile with readable colorants and curves.
    init?(source profile: cmsHPROFILE, srgb: cmsHPROFILE) {
        guard cmsIsMatrixShaper(profile) != 0, let source = Self.colorants(profile), let target = Self.colorants(srgb),
              let inverse = Self.inverse(target) else { return nil }
        var linear = [Float](repeating: 0, count: 3 * 256)
        for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            let curve = OpaquePointer(raw)
            for value in 0..<256 { linear[channel * 256 + value] = cmsEvalToneCurveFloat(curve, Float(value) / 255) }
        }
        self.linear = linear
        matrix = (0..<9).map { index in
            let (row, column) = (index / 3, index % 3)
            return Float((0..<3).reduce(0.0) { $0 + inverse[row * 3 + $1] * source[$1 * 3 + column] })
        }
        encode = (0..<Self.encodeSteps).map { step in
            let value = Double(step) / Double(Self.encodeSteps - 1)
            let encoded = value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
            return UInt8(min(255, max(0, (encoded * 255).rounded())))
        }
    }

    /// `count` RGBA pixels from `input` to `output`, alpha copied.
    func convert(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, count: Int) {
        linear.withUnsafeBufferPointer { lin in
            encode.withUnsafeBufferPointer { enc in
                let m = matrix
                let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
                let top = Float(Self.encodeSteps - 1)
                @inline(__always) func level(_ value: Float) -> UInt8 {
                    enc[Int(min(max(value, 0), 1) * top + 0.5)]
                }
                for pixel in 0..<count {
                    let at = pixel * 4
                    let r = lin[Int(input[at])], g = lin[256 + Int(input[at + 1])], b = lin[512 + Int(input[at + 2])]
                    output[at] = level(m0 * r + m1 * g + m2 * b)
                    output[at + 1] = level(m3 * r + m4 * g + m5 * b)
                    output[at + 2] = level(m6 * r + m7 * g + m8 * b)
                    output[at + 3] = input[at + 3]
                }
            }
        }
    }

    /// The colorant tags as a row-major matrix whose columns are red, green and blue XYZ.
    private static func colorants(_ profile: cmsHPROFILE) -> [Double]? {
        var columns: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            columns.append(raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee)
        }
        return [columns[0].X, columns[1].X, columns[2].X, columns[0].Y, columns[1].Y, columns[2].Y,
                columns[0].Z, columns[1].Z, columns[2].Z]
    }

    private static func inverse(_ m: [Double]) -> [Double]? {
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        guard abs(det) > 1e-9 else { return nil }
        return [
            (m[4] * m[8] - m[5] * m[7]) / det, (m[2] * m[7] - m[1] * m[8]) / det, (m[1] * m[5] - m[2] * m[4]) / det,
            (m[5] * m[6] - m[3] * m[8]) / det, (m[0] * m[8] - m[2] * m[6]) / det, (m[2] * m[3] - m[0] * m[5]) / det,
            (m[3] * m[7] - m[4] * m[6]) / det, (m[1] * m[6] - m[0] * m[7]) / det, (m[0] * m[4] - m[1] * m[3]) / det,
        ]
    }
}
