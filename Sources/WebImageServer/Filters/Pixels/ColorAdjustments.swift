/// thumbor's per-channel colour filters (`ext/filters/_brightness.c`, `_contrast.c`, `_rgb.c`,
/// `_colorize.c`) as lookup tables, with their C integer arithmetic: `/` truncates toward zero,
/// then the result is clamped to 0…255.
enum ColorAdjustments {
    /// `brightness(amount)`: adds `255 × amount / 100` to each channel. Beyond ±100 every channel
    /// is already 0 or 255, so the amount is clamped there (which also keeps `255 × amount` from
    /// overflowing, as it would in thumbor's `int`).
    static func brightness(_ amount: Int) -> ChannelTables {
        ChannelTables(all: shift(by: amount))
    }

    /// `rgb(r,g,b)`: brightness per channel.
    static func rgb(red: Int, green: Int, blue: Int) -> ChannelTables {
        ChannelTables(red: shift(by: red), green: shift(by: green), blue: shift(by: blue))
    }

    /// `contrast(amount)`: `factor = (amount + 100)² / 100`, then `factor × (c − 128) / 100 + 128`.
    /// Not monotonic (−200 is the identity again), as in thumbor. A factor of 25,600 already sends
    /// every channel but 128 to 0 or 255, so larger ones are clamped to it.
    static func contrast(_ amount: Int) -> ChannelTables {
        let base = Int64(amount) + 100
        let factor = min(base * base / 100, 25_600)
        return ChannelTables(all: (0..<256).map { c in clampedChannel(Int(factor * Int64(c - 128) / 100) + 128) })
    }

    /// `colorize(r%,g%,b%,rrggbb)`: each channel blended toward the colour's by its percentage,
    /// `(c × (100 − p) + fill × p) / 100` in doubles, truncated. A percentage over 100 overshoots
    /// (then clamps), as thumbor's does; past 30,000 % every channel that differs from the fill's
    /// is already 0 or 255, so larger percentages are clamped there.
    static func colorize(percentages: (red: Int, green: Int, blue: Int), fill: RGB) -> ChannelTables {
        let percent = [percentages.red, percentages.green, percentages.blue].map { Double(max(0, min($0, 30_000))) }
        let target = [Double(fill.r), Double(fill.g), Double(fill.b)]
        return ChannelTables { channel, c in
            let p = percent[channel]
            return truncatedChannel((Double(c) * (100 - p) + target[channel] * p) / 100)
        }
    }

    /// An opaque colour (colorize's fill is three bytes).
    struct RGB: Sendable, Hashable {
        var r, g, b: UInt8

        /// Exactly six hex digits (thumbor's `bytearray.fromhex`), or nil.
        init?(hex text: String) {
            guard text.utf8.count == 6, text.allSatisfy(\.isHexDigit), let value = UInt32(text, radix: 16) else { return nil }
            r = UInt8(value >> 16 & 0xFF)
            g = UInt8(value >> 8 & 0xFF)
            b = UInt8(value & 0xFF)
        }
    }

    /// `c + 255 × amount / 100`, the amount clamped to ±100 (which changes no result).
    private static func shift(by amount: Int) -> [UInt8] {
        let delta = 255 * max(-100, min(100, amount)) / 100
        return (0..<256).map { clampedChannel($0 + delta) }
    }
}
