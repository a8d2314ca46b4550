import WebImage

/// Draws bitmaps as 24-bit-colour text: each character cell is an upper half block `▀` whose
/// foreground is one pixel and background the pixel below, so a W×H image takes W columns and
/// H/2 rows, with roughly square pixels in a usual terminal font.
struct TerminalRenderer: Sendable {
    /// Largest drawing, in character cells.
    var columns: Int
    var rows: Int

    /// The pixel size `size` is drawn at: fitted into columns × 2·rows, never upscaled past
    /// the box (small images are drawn at their size).
    func drawingSize(for size: PixelSize) -> PixelSize {
        ThumbnailMath.scaledSize(size, fitting: PixelSize(width: columns, height: rows * 2))
    }

    /// `bitmap` (upright, straight RGBA) as text lines, resampled to ``drawingSize(for:)`` and
    /// composited over a dark checkerboard where it is transparent.
    func lines(for bitmap: Bitmap) -> [String] {
        let size = drawingSize(for: bitmap.size)
        let scaled = size == bitmap.size ? bitmap
            : ResizingTransformer(size: size, scaleMode: .fill).transform(Image(bitmap: bitmap), forKey: "")?.bitmap ?? bitmap
        var lines: [String] = []
        lines.reserveCapacity((scaled.height + 1) / 2)
        var y = 0
        while y < scaled.height {
            var line = ""
            line.reserveCapacity(scaled.width * 40)
            for x in 0..<scaled.width {
                let top = Self.composited(scaled, x, y)
                let bottom = y + 1 < scaled.height ? Self.composited(scaled, x, y + 1) : (0, 0, 0)
                line += "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m▀"
            }
            line += "\u{1B}[0m"
            lines.append(line)
            y += 2
        }
        return lines
    }

    /// The pixel at (x, y) over a 4-pixel checkerboard of two dark greys.
    static func composited(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = y * bitmap.bytesPerRow + x * 4
        let p = bitmap.pixels
        let alpha = Int(p[i + 3])
        let backdrop = ((x / 4 + y / 4) % 2 == 0) ? 48 : 72
        func mix(_ c: UInt8) -> Int { (Int(c) * alpha + backdrop * (255 - alpha) + 127) / 255 }
        return (mix(p[i]), mix(p[i + 1]), mix(p[i + 2]))
    }
}
