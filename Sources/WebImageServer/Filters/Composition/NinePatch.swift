import WebImage

/// An Android-style nine-patch, read as thumbor's `_nine_patch.c` reads it: a one-pixel border
/// whose opaque black pixels mark, on the top row and left column, the stretchy columns and rows,
/// and on the bottom row and right column, the content area (its padding). The cells between the
/// marks are drawn over a target, fixed ones at their size and stretchy ones scaled (bilinear)
/// to share what the target has left.
struct NinePatch: Sendable {
    let bitmap: Bitmap

    struct Padding: Sendable, Hashable {
        var left = 0, top = 0, right = 0, bottom = 0
    }

    private func isStretchy(_ x: Int, _ y: Int) -> Bool {
        let i = y * bitmap.bytesPerRow + x * 4
        return bitmap.pixels[i] == 0 && bitmap.pixels[i + 1] == 0 && bitmap.pixels[i + 2] == 0 && bitmap.pixels[i + 3] == 255
    }

    /// `get_padding`: the unmarked pixels before the first and after the last mark of the bottom row
    /// and the right column (0 on a side with no mark).
    var padding: Padding {
        let (w, h) = (bitmap.width, bitmap.height)
        guard w >= 3, h >= 3 else { return Padding() }
        var padding = Padding()
        if let first = (1..<(w - 1)).first(where: { isStretchy($0, h - 1) }) { padding.left = first - 1 }
        if let last = (1..<(w - 1)).last(where: { isStretchy($0, h - 1) }) { padding.right = w - 2 - last }
        if let first = (1..<(h - 1)).first(where: { isStretchy(w - 1, $0) }) { padding.top = first - 1 }
        if let last = (1..<(h - 1)).last(where: { isStretchy(w - 1, $0) }) { padding.bottom = h - 2 - last }
        return padding
    }

    /// Runs of equal stretchiness along the top row (`columns`) or left column: (start, length, stretchy).
    private func runs(columns: Bool) -> [(start: Int, length: Int, stretchy: Bool)] {
        let end = (columns ? bitmap.width : bitmap.height) - 1
        var runs: [(Int, Int, Bool)] = []
        var start = 1
        while start < end {
            let stretchy = columns ? isStretchy(start, 0) : isStretchy(0, start)
            var next = start + 1
            while next < end, (columns ? isStretchy(next, 0) : isStretchy(0, next)) == stretchy { next += 1 }
            runs.append((start, next - start, stretchy))
            start = next
        }
        return runs
    }

    /// `_nine_patch.apply`: every cell drawn over `canvas`, top-left first. A cell that would not
    /// fit is left out, as thumbor leaves it.
    func draw(over canvas: inout ThumborCompositing.Canvas) {
        guard bitmap.width >= 3, bitmap.height >= 3 else { return }
        let columns = runs(columns: true), rows = runs(columns: false)
        let stretchyWidth = columns.filter(\.stretchy).reduce(0) { $0 + $1.length }
        let stretchyHeight = rows.filter(\.stretchy).reduce(0) { $0 + $1.length }
        let targetStretchyWidth = max(0, canvas.width - (bitmap.width - 2 - stretchyWidth))
        let targetStretchyHeight = max(0, canvas.height - (bitmap.height - 2 - stretchyHeight))
        var targetY = 0
        for row in rows {
            let height = row.stretchy
                ? Int(Double(row.length) / Double(stretchyHeight) * Double(targetStretchyHeight) + 0.5) : row.length
            var targetX = 0
            for column in columns {
                let width = column.stretchy
                    ? Int(Double(column.length) / Double(stretchyWidth) * Double(targetStretchyWidth) + 0.5) : column.length
                paste(PixelRect(x: column.start, y: row.start, width: column.length, height: row.length),
                      into: &canvas, PixelRect(x: targetX, y: targetY, width: width, height: height))
                targetX += width
            }
            targetY += height
        }
    }

    /// `paste_rectangle`: the cell `source` scaled (bilinear) onto `target`, colour composited over
    /// the canvas by the cell's alpha; the canvas keeps its own alpha.
    private func paste(_ source: PixelRect, into canvas: inout ThumborCompositing.Canvas, _ target: PixelRect) {
        guard target.width > 0, target.height > 0, target.x + target.width <= canvas.width,
              target.y + target.height <= canvas.height else { return }
        let xRatio = Double(source.width - 1) / Double(target.width)
        let yRatio = Double(source.height - 1) / Double(target.height)
        let stride = bitmap.bytesPerRow, canvasWidth = canvas.width
        bitmap.pixels.withUnsafeBufferPointer { patch in
            canvas.pixels.withUnsafeMutableBufferPointer { out in
                // Reads stay inside the patch: a cell's last column or row plus one is at most its border.
                func sample(_ x: Int, _ y: Int, _ fx: Double, _ fy: Double, _ channel: Int) -> Int {
                    let i = y * stride + x * 4 + channel
                    let a = Int(patch[i]), b = Int(patch[i + 4]), c = Int(patch[i + stride]), d = Int(patch[i + stride + 4])
                    if a == b, a == c, a == d { return a }
                    let combined = Double(a) * (1 - fx) * (1 - fy) + Double(b) * (0 + fx) * (1 - fy)
                        + Double(c) * (1 - fx) * (0 + fy) + Double(d) * (0 + fx) * (0 + fy)
                    return Int(ThumborCompositing.byte(combined))
                }
                for y in 0..<target.height {
                    let sourceY = Int(yRatio * Double(y))
                    let fy = yRatio * Double(y) - Double(sourceY)
                    for x in 0..<target.width {
                        let sourceX = Int(xRatio * Double(x))
                        let fx = xRatio * Double(x) - Double(sourceX)
                        let (px, py) = (source.x + sourceX, source.y + sourceY)
                        let o = ((target.y + y) * canvasWidth + target.x + x) * 4
                        let sourceClear = Double(255 - sample(px, py, fx, fy, 3)) / 255
                        let targetClear = Double(255 - Int(out[o + 3])) / 255
                        for channel in 0..<3 {
                            let value = (1 - sourceClear) * Double(sample(px, py, fx, fy, channel))
                                + (1 - targetClear) * Double(out[o + channel]) * sourceClear
                            out[o + channel] = ThumborCompositing.byte(value)
                        }
                    }
                }
            }
        }
    }
}

/// thumbor's `frame(url)`: the image padded (white) by the nine-patch's content padding, then the
/// nine-patch drawn over it, stretched to its size. When planning (no nine-patch yet) its size is
/// the largest the nine-patch's header allows.
struct FrameTransformer: ImageTransformer {
    let ninePatch: NinePatch?
    let url: String
    /// The nine-patch's size from its header, when planning: its padding is at most that less its marks.
    var plannedPatch: PixelSize? = nil

    var transformerKey: String { "FrameTransformer(\(url))" }

    /// The size the frame makes of an image of `size`.
    func size(for size: PixelSize) -> PixelSize {
        guard let padding = ninePatch?.padding else {
            guard let patch = plannedPatch else { return size }
            return PixelSize(width: size.width + max(0, patch.width - 2), height: size.height + max(0, patch.height - 2))
        }
        return PixelSize(width: size.width + padding.left + padding.right, height: size.height + padding.top + padding.bottom)
    }

    func transform(_ image: Image, forKey key: String) -> Image? {
        guard let ninePatch else { return image }
        let padding = ninePatch.padding
        return image.transformingUprightFrames { bitmap in
            var canvas = ThumborCompositing.Canvas(size: size(for: bitmap.size), color: RGBA(r: 255, g: 255, b: 255))
            canvas.paste(bitmap, at: padding.left, padding.top)
            ninePatch.draw(over: &canvas)
            return canvas.bitmap
        }
    }
}
