/// Reduces straight RGBA8 pixels to at most 256 palette entries, for GIF.
///
/// Written here rather than using giflib's `GifQuantizeBuffer`: that one works on 5 bits per
/// channel, so even a four-colour image comes back with its colours rounded (255 → 248), and it
/// has no notion of alpha. This one keeps images of ≤ 255 colours exact, reserves an index for
/// transparent pixels, and otherwise runs a median cut whose entries are the true 8-bit means of
/// the colours they stand for. No dithering: GIF frames often share pixels, and dither noise
/// would make unchanged areas flicker and compress worse.
struct ColorQuantizer {
    /// Pixels with alpha below this are written as the transparent index (GIF has 1-bit alpha).
    static let alphaThreshold: UInt8 = 128

    struct Result {
        /// Opaque colours (alpha ignored), then the transparent entry when there is one.
        var palette: [RGBA]
        /// One palette index per pixel, rows top to bottom.
        var indices: [UInt8]
        var transparentIndex: Int?
    }

    static func quantize(_ bitmap: Bitmap, maxColors: Int = 256) -> Result {
        let maxColors = max(2, min(256, maxColors))
        let histogram = Histogram(bitmap)
        let available = maxColors - (histogram.hasTransparency ? 1 : 0)
        var palette: [RGBA]
        var indices: [UInt8]
        if let exact = histogram.exactColors, exact.count <= available {
            palette = exact
            indices = mapExactly(bitmap, palette: exact, transparentIndex: exact.count)
        } else {
            palette = MedianCut(histogram: histogram, colors: available).palette
            indices = mapToNearest(bitmap, palette: palette, transparentIndex: palette.count)
        }
        var transparentIndex: Int?
        if histogram.hasTransparency {
            transparentIndex = palette.count
            palette.append(RGBA(r: 0, g: 0, b: 0, a: 0))
        }
        if palette.isEmpty { palette = [RGBA(r: 0, g: 0, b: 0)] }
        return Result(palette: palette, indices: indices, transparentIndex: transparentIndex)
    }

    private static func key(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }

    private static func mapExactly(_ bitmap: Bitmap, palette: [RGBA], transparentIndex: Int) -> [UInt8] {
        var lookup: [UInt32: UInt8] = [:]
        for (index, color) in palette.enumerated() { lookup[key(color.r, color.g, color.b)] = UInt8(index) }
        return map(bitmap, transparentIndex: transparentIndex) { r, g, b in lookup[key(r, g, b)] ?? 0 }
    }

    /// Nearest entry by squared RGB distance, cached per 6-bit-per-channel cell (the cell's
    /// centre is searched): at most 2 levels of extra error per channel, 256× fewer searches.
    private static func mapToNearest(_ bitmap: Bitmap, palette: [RGBA], transparentIndex: Int) -> [UInt8] {
        var cache = [Int16](repeating: -1, count: 1 << 18)
        return map(bitmap, transparentIndex: transparentIndex) { r, g, b in
            let cell = Int(r >> 2) << 12 | Int(g >> 2) << 6 | Int(b >> 2)
            if cache[cell] >= 0 { return UInt8(cache[cell]) }
            let (cr, cg, cb) = (Int(r & 0xFC) + 2, Int(g & 0xFC) + 2, Int(b & 0xFC) + 2)
            var best = 0
            var bestDistance = Int.max
            for (index, color) in palette.enumerated() {
                let dr = Int(color.r) - cr, dg = Int(color.g) - cg, db = Int(color.b) - cb
                let distance = dr * dr + dg * dg + db * db
                if distance < bestDistance { (best, bestDistance) = (index, distance) }
            }
            cache[cell] = Int16(best)
            return UInt8(best)
        }
    }

    private static func map(_ bitmap: Bitmap, transparentIndex: Int, _ index: (UInt8, UInt8, UInt8) -> UInt8) -> [UInt8] {
        let count = bitmap.width * bitmap.height
        let transparent = UInt8(truncatingIfNeeded: transparentIndex)
        return bitmap.pixels.withUnsafeBufferPointer { p in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                for i in 0..<count {
                    let s = i * 4
                    out[i] = p[s + 3] < alphaThreshold ? transparent : index(p[s], p[s + 1], p[s + 2])
                }
                initialized = count
            }
        }
    }
}

/// Colour statistics of a bitmap's opaque pixels: the exact colours while there are at most 256
/// of them, and counts plus channel sums in 5-bit-per-channel cells for the median cut.
private struct Histogram {
    static let cellCount = 1 << 15

    var hasTransparency = false
    /// Distinct colours in first-seen order; `nil` once there are more than 256.
    var exactColors: [RGBA]?
    var counts = [Int](repeating: 0, count: cellCount)
    var sums = [Int](repeating: 0, count: cellCount * 3)

    init(_ bitmap: Bitmap) {
        var seen = Set<UInt32>()
        var exact: [RGBA]? = []
        bitmap.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let (r, g, b, a) = (p[i], p[i + 1], p[i + 2], p[i + 3])
                i += 4
                if a < ColorQuantizer.alphaThreshold {
                    hasTransparency = true
                    continue
                }
                if exact != nil, seen.insert(UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)).inserted {
                    exact?.append(RGBA(r: r, g: g, b: b))
                    if seen.count > 256 { exact = nil }
                }
                let cell = Histogram.cell(r, g, b)
                counts[cell] += 1
                sums[cell * 3] += Int(r)
                sums[cell * 3 + 1] += Int(g)
                sums[cell * 3 + 2] += Int(b)
            }
        }
        exactColors = exact
    }

    static func cell(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
    }

    /// The cell's coordinate on `axis` (0 red, 1 green, 2 blue), 0...31.
    static func coordinate(_ cell: Int, axis: Int) -> Int {
        (cell >> (10 - axis * 5)) & 31
    }
}

/// Heckbert's median cut over the histogram's cells: repeatedly split the box with the widest
/// colour range (ties to the most pixels) at the pixel median of that axis.
private struct MedianCut {
    let palette: [RGBA]

    private struct Box {
        var cells: [Int]
        var axis = 0
        var range = 0
        var pixels = 0

        init(_ cells: [Int], histogram: Histogram) {
            self.cells = cells
            pixels = cells.reduce(0) { $0 + histogram.counts[$1] }
            range = -1
            for axis in 0..<3 {
                var low = 31, high = 0
                for cell in cells {
                    let c = Histogram.coordinate(cell, axis: axis)
                    low = min(low, c)
                    high = max(high, c)
                }
                if high - low > range { (self.axis, range) = (axis, high - low) }
            }
        }
    }

    init(histogram: Histogram, colors: Int) {
        let cells = (0..<Histogram.cellCount).filter { histogram.counts[$0] > 0 }
        guard !cells.isEmpty else {
            palette = []
            return
        }
        var boxes = [Box(cells, histogram: histogram)]
        while boxes.count < colors {
            var chosen: Int?
            for index in boxes.indices where boxes[index].cells.count > 1 {
                if let best = chosen, (boxes[index].range, boxes[index].pixels) <= (boxes[best].range, boxes[best].pixels) {
                    continue
                }
                chosen = index
            }
            guard let chosen else { break }  // every box is a single cell
            let box = boxes[chosen]
            let sorted = box.cells.sorted {
                Histogram.coordinate($0, axis: box.axis) < Histogram.coordinate($1, axis: box.axis)
            }
            var running = 0
            var split = 1
            for (position, cell) in sorted.enumerated().dropLast() {
                running += histogram.counts[cell]
                split = position + 1
                if running * 2 >= box.pixels { break }
            }
            boxes[chosen] = Box(Array(sorted[..<split]), histogram: histogram)
            boxes.append(Box(Array(sorted[split...]), histogram: histogram))
        }
        palette = boxes.map { box in
            var r = 0, g = 0, b = 0
            for cell in box.cells {
                r += histogram.sums[cell * 3]
                g += histogram.sums[cell * 3 + 1]
                b += histogram.sums[cell * 3 + 2]
            }
            let count = box.pixels, half = box.pixels / 2
            return RGBA(r: UInt8((r + half) / count), g: UInt8((g + half) / count), b: UInt8((b + half) / count))
        }
    }
}
