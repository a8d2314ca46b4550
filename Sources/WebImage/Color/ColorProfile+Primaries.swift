import CLCMS2
import Foundation

extension ColorProfile {
    /// A tone curve as colour metadata names them (PNG gAMA, CICP transfer characteristics).
    enum Transfer: Equatable {
        case sRGB
        /// BT.709/601/2020 camera curve (CICP 1, 6, 14, 15).
        case bt709
        /// value = encoded ^ exponent (PNG gAMA 45455 is an exponent of 2.2).
        case gamma(Double)
    }

    /// CIE xy chromaticities of white and the three primaries.
    struct Primaries: Equatable {
        var white: (x: Double, y: Double)
        var red: (x: Double, y: Double)
        var green: (x: Double, y: Double)
        var blue: (x: Double, y: Double)

        static let sRGB = Primaries(white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))

        static func == (a: Primaries, b: Primaries) -> Bool {
            let pairs = [(a.white, b.white), (a.red, b.red), (a.green, b.green), (a.blue, b.blue)]
            return pairs.allSatisfy { abs($0.0.x - $0.1.x) < 0.001 && abs($0.0.y - $0.1.y) < 0.001 }
        }
    }

    /// An RGB profile for pixels with these primaries and this curve, or nil when that is sRGB
    /// (a BT.709 curve on sRGB primaries counts as sRGB, as browsers treat such images).
    static func rgb(_ primaries: Primaries, transfer: Transfer) -> ColorProfile? {
        if primaries == .sRGB {
            switch transfer {
            case .sRGB, .bt709: return nil
            case .gamma(let exponent) where abs(exponent - 2.2) < 0.05: return nil
            case .gamma: break
            }
        }
        var white = cmsCIExyY(x: primaries.white.x, y: primaries.white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries.red.x, y: primaries.red.y, Y: 1),
                                     Green: cmsCIExyY(x: primaries.green.x, y: primaries.green.y, Y: 1),
                                     Blue: cmsCIExyY(x: primaries.blue.x, y: primaries.blue.y, Y: 1))
        guard let curve = toneCurve(transfer) else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = cmsCreateRGBProfile(&white, &triple, &curves) else { return nil }
        defer { cmsCloseProfile(profile) }
        var size: UInt32 = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0 else { return nil }
        var bytes = Data(count: Int(size))
        let saved = bytes.withUnsafeMutableBytes { cmsSaveProfileToMem(profile, $0.baseAddress, &size) }
        return saved != 0 ? ColorProfile(iccData: bytes) : nil
    }

    private static func toneCurve(_ transfer: Transfer) -> OpaquePointer? {
        switch transfer {
        case .gamma(let exponent):
            return exponent > 0 && exponent < 10 ? cmsBuildGamma(nil, exponent) : nil
        case .sRGB:
            // lcms2's type 4: Y = (aX + b)^g for X >= d, cX below.
            var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            return cmsBuildParametricToneCurve(nil, 4, &parameters)
        case .bt709:
            var parameters: [Double] = [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
            return cmsBuildParametricToneCurve(nil, 4, &parameters)
        }
    }
}

extension ColorProfile.Transfer {
    /// A CICP (ITU-T H.273) transfer characteristic, as AVIF and HEIF nclx boxes give it; nil for
    /// the HDR curves (PQ, HLG) and others an 8-bit sRGB output cannot honour by a profile alone —
    /// those pixels stay as decoded.
    init?(cicp code: Int) {
        switch code {
        case 0, 2, 13: self = .sRGB  // reserved/unspecified read as sRGB, as browsers do
        case 1, 6, 14, 15: self = .bt709
        case 4: self = .gamma(2.2)
        case 5: self = .gamma(2.8)
        case 8: self = .gamma(1)
        default: return nil
        }
    }
}

extension ColorProfile {
    /// The profile for CICP colour: primaries as chromaticities (red, green, blue, white x/y
    /// pairs, libavif's and libheif's order) and a transfer code; nil when that is sRGB or a curve
    /// WebImage does not convert.
    static func cicp(primaries xy: [Double], transfer code: Int) -> ColorProfile? {
        guard xy.count == 8, let transfer = Transfer(cicp: code) else { return nil }
        let primaries = Primaries(white: (xy[6], xy[7]), red: (xy[0], xy[1]), green: (xy[2], xy[3]), blue: (xy[4], xy[5]))
        return rgb(primaries, transfer: transfer)
    }
}
