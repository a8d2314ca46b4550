import WebImage

/// thumbor's `watermark(url,x,y,alpha[,w_ratio,h_ratio])`: the watermark, its opacity lowered by
/// `alpha` percent and scaled to the ratios' box, merged over the image at x/y (or centred, or
/// tiled with `repeat`) by thumbor's `_composite`. Only the part of the scaled watermark that lands
/// on the image is made, so a watermark scaled far past its image costs no more than the image.
/// Without its watermark (when planning) it changes nothing.
struct WatermarkTransformer: ImageTransformer {
    let arguments: WatermarkArguments
    let mark: Bitmap?

    var transformerKey: String { "WatermarkTransformer(\(arguments))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        guard let mark, !mark.size.isEmpty else { return image }
        // `_alpha.c`: every alpha lowered by 255·alpha/100 (integer division), floored at 0.
        let lowered = 255 * min(arguments.alpha, 100) / 100
        let alphaMap: [UInt8]? = lowered == 0 ? nil : (0...255).map { UInt8(max(0, $0 - lowered)) }
        return image.transformingUprightFrames { bitmap in
            var canvas = ThumborCompositing.Canvas(bitmap)
            let tile = arguments.scaledSize(of: mark.size, on: bitmap.size) ?? mark.size
            let xs = Self.placements(arguments.x, tile: tile.width, side: bitmap.width)
            let ys = Self.placements(arguments.y, tile: tile.height, side: bitmap.height)
            let both = arguments.x == .repeating && arguments.y == .repeating
            let columns = Self.limitRepeats(xs, other: ys, tile: tile.width, side: bitmap.width, bothRepeat: both)
            let rows = Self.limitRepeats(ys, other: xs, tile: tile.height, side: bitmap.height, bothRepeat: both)
            // The part of one tile that can show: every tile is the same scaled watermark.
            guard let visibleX = Self.visible(columns, tile: tile.width, side: bitmap.width),
                  let visibleY = Self.visible(rows, tile: tile.height, side: bitmap.height) else { return bitmap }
            let visible = PixelRect(x: visibleX.lowerBound, y: visibleY.lowerBound, width: visibleX.count, height: visibleY.count)
            let part: Bitmap
            if tile == mark.size {
                part = mark
            } else {
                guard let scaled = mark.resampledPart(scaledTo: tile, visible: visible) else { return bitmap }
                part = scaled
            }
            let offset = tile == mark.size ? (x: 0, y: 0) : (x: visible.x, y: visible.y)
            for y in rows {
                for x in columns {
                    canvas.merge(part, at: x + offset.x, y + offset.y, alpha: alphaMap)
                }
            }
            return canvas.bitmap
        }
    }

    /// The tile positions along one side (thumbor's x or y logic): one position, or for `repeat`
    /// `divmod(side, tile)` tiles spread over the side (with 10 px between when fewer than two fit).
    static func placements(_ position: WatermarkArguments.Position, tile: Int, side: Int) -> [Int] {
        switch position {
        case .center: return [Int(Double(side - tile) / 2)]
        case .pixels(let value, let fromEnd): return [fromEnd ? side - tile - value : value]
        case .percent(let percent, let fromEnd):
            let value = Int((Double(side) * Double(percent) / 100 + 1e-5).rounded(.toNearestOrEven))
            return [fromEnd ? side - tile - value : value]
        case .repeating:
            let (count, spare) = repeats(tile: tile, side: side)
            return tiles(count: count, spare: spare, tile: tile)
        }
    }

    /// `divmod(side, tile)`, or `(ceil(side / tile), 10)` when fewer than two tiles fit.
    static func repeats(tile: Int, side: Int) -> (count: Int, spare: Int) {
        let tile = max(1, tile)
        if Double(side) / Double(tile) < 2 { return (Int((Double(side) / Double(tile)).rounded(.up)), 10) }
        return (side / tile, side % tile)
    }

    static func tiles(count: Int, spare: Int, tile: Int) -> [Int] {
        let space = spare / (max(count, 2) - 1)
        return (0..<max(0, count)).map { $0 * space + $0 * tile }
    }

    /// thumbor's rule when both axes repeat and more than 100 tiles would be drawn: at most 6 a
    /// side, spread over the whole side.
    static func limitRepeats(_ positions: [Int], other: [Int], tile: Int, side: Int, bothRepeat: Bool) -> [Int] {
        guard bothRepeat, positions.count * other.count > 100 else { return positions }
        let count = min(6, positions.count)
        return tiles(count: count, spare: side - count * tile, tile: tile)
    }

    /// The range of tile pixels (from the tile's own left or top) that any tile placed at
    /// `positions` shows on a side of `side` pixels; nil when none shows.
    static func visible(_ positions: [Int], tile: Int, side: Int) -> Range<Int>? {
        var lower = tile, upper = 0
        for position in positions {
            let from = max(0, -position), to = min(tile, side - position)
            guard to > from else { continue }
            lower = min(lower, from)
            upper = max(upper, to)
        }
        return upper > lower ? lower..<upper : nil
    }
}
