@testable import WebImage

/// Small exact bitmaps for the transformer specs.
enum TransformerFixtures {
    /// A bitmap from rows of pixels (all rows the same length).
    static func bitmap(_ rows: [[RGBA]]) -> Bitmap {
        Bitmap(width: rows[0].count, height: rows.count, pixels: rows.flatMap { $0.flatMap { [$0.r, $0.g, $0.b, $0.a] } })
    }

    /// A `width` × `height` bitmap whose every pixel is distinct: red = x·10, green = y·10.
    static func numbered(width: Int, height: Int) -> Bitmap {
        bitmap((0..<height).map { y in (0..<width).map { x in RGBA(r: UInt8(x * 10), g: UInt8(y * 10), b: 7) } })
    }

    /// The pixels of `bitmap` as rows, for comparing with a literal.
    static func rows(_ bitmap: Bitmap) -> [[RGBA]] {
        (0..<bitmap.height).map { y in (0..<bitmap.width).map { x in bitmap[x, y] } }
    }

    static let red = RGBA(r: 255, g: 0, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
}
