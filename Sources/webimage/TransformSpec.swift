import Foundation
import WebImage

/// The `--transform` grammar: steps joined with commas (or the option repeated), applied in order.
///
///     resize:WxH[:fit|fill|stretch]   fit inside (default), cover and crop, or stretch to WxH
///     crop:X,Y,W,H                    keep this pixel rectangle (its own commas belong to it)
///     flip:h | flip:v | flip:hv       mirror horizontally, vertically, or both
///     rotate:DEG                      counterclockwise degrees; the canvas grows to fit
///     round:R                         round the corners with radius R pixels
///     tint:#RRGGBB[AA]                colour the visible pixels
///     blur:R                          Gaussian blur, R = standard deviation in pixels
enum TransformSpec {
    /// Shown by `--help` and in usage errors.
    static let grammar = "resize:WxH[:fit|fill|stretch], crop:X,Y,W,H, flip:h|v|hv, rotate:DEG, round:R, tint:#RRGGBB[AA], blur:R"

    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    /// The transformers `specs` name, in order; one spec may hold several steps joined by commas.
    static func parse(_ specs: [String]) throws(ParseError) -> [any ImageTransformer] {
        var tokens = specs.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }[...]
        var transformers: [any ImageTransformer] = []
        while let token = tokens.popFirst() {
            let trimmed = token.trimmingCharacters(in: .whitespaces)
            guard let colon = trimmed.firstIndex(of: ":") else {
                throw ParseError(description: "'\(trimmed)' is not a transform step (NAME:VALUE); steps: \(grammar)")
            }
            let name = trimmed[..<colon].lowercased()
            var value = String(trimmed[trimmed.index(after: colon)...])
            if name == "crop" {
                // crop's X,Y,W,H use the separator too: take the next three tokens with it.
                for _ in 0..<3 {
                    guard let more = tokens.popFirst() else { break }
                    value += "," + more
                }
            }
            transformers.append(try step(name, value))
        }
        return transformers
    }

    private static func step(_ name: String, _ value: String) throws(ParseError) -> any ImageTransformer {
        let bad = { (expected: String) in ParseError(description: "\(name):\(value) - expected \(name):\(expected)") }
        switch name {
        case "resize":
            let parts = value.split(separator: ":").map(String.init)
            guard (1...2).contains(parts.count), let size = PixelSize(parsing: parts[0]) else { throw bad("WxH[:fit|fill|stretch]") }
            let modes: [String: ResizingTransformer.ScaleMode] = ["fit": .aspectFit, "fill": .aspectFill, "stretch": .fill]
            guard let mode = modes[parts.count == 2 ? parts[1].lowercased() : "fit"] else { throw bad("WxH[:fit|fill|stretch]") }
            return ResizingTransformer(size: size, scaleMode: mode)
        case "crop":
            let numbers = value.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers[0] >= 0, numbers[1] >= 0, numbers[2] > 0, numbers[3] > 0 else { throw bad("X,Y,W,H") }
            return CroppingTransformer(rect: PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        case "flip":
            let axes = value.lowercased()
            guard !axes.isEmpty, axes.allSatisfy({ $0 == "h" || $0 == "v" }) else { throw bad("h|v|hv") }
            return FlippingTransformer(horizontal: axes.contains("h"), vertical: axes.contains("v"))
        case "rotate":
            guard let degrees = Double(value), degrees.isFinite else { throw bad("DEG") }
            return RotationTransformer(angle: degrees * .pi / 180, fitSize: true)
        case "round":
            guard let radius = Double(value), radius >= 0, radius.isFinite else { throw bad("R") }
            return RoundCornerTransformer(cornerRadius: radius)
        case "tint":
            guard let color = rgba(hex: value) else { throw bad("#RRGGBB[AA]") }
            return TintTransformer(color: color)
        case "blur":
            guard let radius = Double(value), radius >= 0, radius.isFinite else { throw bad("R") }
            return BlurTransformer(radius: radius)
        default:
            throw ParseError(description: "unknown transform '\(name)'; steps: \(grammar)")
        }
    }

    /// `#rrggbb` or `#rrggbbaa` (the `#` optional).
    static func rgba(hex: String) -> RGBA? {
        let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
        guard digits.count == 6 || digits.count == 8, let value = UInt32(digits, radix: 16) else { return nil }
        let full = digits.count == 6 ? value << 8 | 0xFF : value
        return RGBA(r: UInt8(full >> 24 & 0xFF), g: UInt8(full >> 16 & 0xFF), b: UInt8(full >> 8 & 0xFF), a: UInt8(full & 0xFF))
    }
}
