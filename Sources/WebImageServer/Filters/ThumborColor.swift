import WebImage

/// thumbor's colours, as its engine reads them: a CSS name, hex `rgb`, `rgba`, `rrggbb` or
/// `rrggbbaa` (with or without `#`), or `transparent`.
enum ThumborColor {
    static func parse(_ text: String) -> RGBA? {
        let lower = text.lowercased()
        if lower == "transparent" { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        if let value = names[lower] { return RGBA(r: UInt8(value >> 16 & 0xFF), g: UInt8(value >> 8 & 0xFF), b: UInt8(value & 0xFF)) }
        let hex = lower.hasPrefix("#") ? lower.dropFirst() : lower[...]
        guard [3, 4, 6, 8].contains(hex.count), hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        // Short forms repeat each digit (`f80` is `ff8800`); a colour without alpha is opaque.
        let digits = hex.count <= 4 ? 1 : 2
        let channels = hex.count / digits
        func channel(_ index: Int) -> UInt8 {
            let shift = UInt32((channels - 1 - index) * 4 * digits)
            let part = value >> shift & (digits == 1 ? 0xF : 0xFF)
            return UInt8(digits == 1 ? part * 17 : part)
        }
        return RGBA(r: channel(0), g: channel(1), b: channel(2), a: channels == 4 ? channel(3) : 255)
    }
}
