import WebImage

/// thumbor's `trim`: the smallest rectangle holding every pixel whose colour differs from the
/// reference corner's by more than the tolerance (Euclidean distance in RGB, alpha included as a
/// fourth axis). Nil when nothing differs (the image is one colour) — thumbor then keeps it whole.
enum TrimBounds {
    static func rect(in bitmap: Bitmap, corner: ThumborPath.Trim.Corner, tolerance: Int) -> PixelRect? {
        guard bitmap.width > 0, bitmap.height > 0 else { return nil }
        let reference = corner == .topLeft ? bitmap[0, 0] : bitmap[bitmap.width - 1, bitmap.height - 1]
        let limit = tolerance * tolerance
        var (minX, minY, maxX, maxY) = (bitmap.width, bitmap.height, -1, -1)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<bitmap.height {
                var offset = y * bitmap.bytesPerRow
                for x in 0..<bitmap.width {
                    let dr = Int(pixels[offset]) - Int(reference.r), dg = Int(pixels[offset + 1]) - Int(reference.g)
                    let db = Int(pixels[offset + 2]) - Int(reference.b), da = Int(pixels[offset + 3]) - Int(reference.a)
                    if dr * dr + dg * dg + db * db + da * da > limit {
                        minX = min(minX, x); maxX = max(maxX, x)
                        minY = min(minY, y); maxY = max(maxY, y)
                    }
                    offset += 4
                }
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}
