import WebImage

/// thumbor's colours: a name it knows, or hex `rgb`/`rrggbb` (with or without `#`); `transparent`.
enum ThumborColor {
    static let named: [String: RGBA] = [
        "white": RGBA(r: 255, g: 255, b: 255), "black": RGBA(r: 0, g: 0, b: 0), "red": RGBA(r: 255, g: 0, b: 0),
        "green": RGBA(r: 0, g: 128, b: 0), "blue": RGBA(r: 0, g: 0, b: 255), "transparent": RGBA(r: 0, g: 0, b: 0, a: 0),
    ]

    static func parse(_ text: String) -> RGBA? {
        let lower = text.lowercased()
        if let color = named[lower] { return color }
        let hex = lower.hasPrefix("#") ? String(lower.dropFirst()) : lower
        guard hex.count == 3 || hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        if hex.count == 3 {
            func expand(_ nibble: UInt32) -> UInt8 { UInt8(nibble * 17) }
            return RGBA(r: expand(value >> 8 & 0xF), g: expand(value >> 4 & 0xF), b: expand(value & 0xF))
        }
        return RGBA(r: UInt8(value >> 16 & 0xFF), g: UInt8(value >> 8 & 0xFF), b: UInt8(value & 0xFF))
    }
}
