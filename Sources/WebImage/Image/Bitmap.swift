/// A block of straight (not premultiplied) RGBA8 pixels, rows top to bottom.
///
/// Straight alpha because every codec reads and writes it, so decode → encode is lossless;
/// filters that need premultiplied values (resampling, blur) convert on the fly.
public struct Bitmap: Sendable, Hashable {
    public static let bytesPerPixel = 4

    public let width: Int
    public let height: Int
    public let bytesPerRow: Int
    public internal(set) var pixels: [UInt8]

    /// A transparent-black bitmap.
    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0, "negative bitmap size")
        self.width = width
        self.height = height
        self.bytesPerRow = width * Bitmap.bytesPerPixel
        self.pixels = [UInt8](repeating: 0, count: bytesPerRow * height)
    }

    /// Wraps tightly packed RGBA8 rows (`pixels.count == width * height * 4`).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * Bitmap.bytesPerPixel, "pixel count does not match size")
        self.width = width
        self.height = height
        self.bytesPerRow = width * Bitmap.bytesPerPixel
        self.pixels = pixels
    }

    /// Fills a new bitmap through `body`, which gets the uninitialised buffer and must write
    /// every byte. Avoids zero-filling memory a decoder overwrites anyway.
    init(width: Int, height: Int, filling body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        let count = width * height * Bitmap.bytesPerPixel
        let pixels = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try body(buffer)
            initialized = count
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The straight RGBA value at (x, y).
    public subscript(x: Int, y: Int) -> RGBA {
        let i = y * bytesPerRow + x * 4
        return RGBA(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2], a: pixels[i + 3])
    }

    /// Whether any pixel is not fully opaque (a scan; decoders record what the file declares).
    public var containsTransparency: Bool {
        pixels.withUnsafeBufferPointer { bytes in
            // The AND of a run of pixels (a loop that vectorises) keeps 255 in its alpha byte only
            // if every pixel does; runs keep the early exit for an image transparent near the top.
            bytes.withMemoryRebound(to: UInt32.self) { words in
                let alpha = UInt32(littleEndian: 0xFF00_0000)
                var start = 0
                while start < words.count {
                    let end = min(words.count, start + 4096)
                    var all = UInt32.max
                    for i in start..<end { all &= words[i] }
                    if all & alpha != alpha { return true }
                    start = end
                }
                return false
            }
        }
    }
}

/// One straight RGBA8 pixel.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    public var r, g, b, a: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }
    public var description: String { "rgba(\(r),\(g),\(b),\(a))" }
}
