import WebImage

/// Three 256-entry tables, one per colour channel: a filter whose output channel depends only on
/// the same input channel (thumbor's brightness, contrast, rgb, colorize, curve) runs as one lookup
/// per byte. Alpha is kept.
struct ChannelTables: Sendable, Hashable {
    var red: [UInt8]
    var green: [UInt8]
    var blue: [UInt8]

    /// The same table for every channel.
    init(all table: [UInt8]) {
        self.init(red: table, green: table, blue: table)
    }

    init(red: [UInt8], green: [UInt8], blue: [UInt8]) {
        precondition(red.count == 256 && green.count == 256 && blue.count == 256, "a channel table has 256 entries")
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// A table for each channel from `value(channel, input)`; channel 0 is red.
    init(_ value: (_ channel: Int, _ input: Int) -> UInt8) {
        self.init(red: (0..<256).map { value(0, $0) }, green: (0..<256).map { value(1, $0) },
                  blue: (0..<256).map { value(2, $0) })
    }

    /// Looks every colour byte of straight RGBA8 `pixels` up in place.
    func apply(to pixels: UnsafeMutableBufferPointer<UInt8>) {
        red.withUnsafeBufferPointer { r in
            green.withUnsafeBufferPointer { g in
                blue.withUnsafeBufferPointer { b in
                    var i = 0
                    while i + 3 < pixels.count {
                        pixels[i] = r[Int(pixels[i])]
                        pixels[i + 1] = g[Int(pixels[i + 1])]
                        pixels[i + 2] = b[Int(pixels[i + 2])]
                        i += 4
                    }
                }
            }
        }
    }
}

/// A per-channel filter as tables made once from its arguments, before any pixel is read.
struct ChannelLookupTransformer: ImageTransformer {
    /// The filter and its arguments, as the URL spelled them (the key names the tables).
    let filter: String
    let tables: ChannelTables

    var transformerKey: String { "ChannelLookup(\(filter))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.rewritingPixels { pixels, _, _ in tables.apply(to: pixels) }
    }
}
