/// The logical screen GIF frames are composited on: straight RGBA8, transparent to begin with
/// (SDWebImage and browsers ignore the background colour index).
///
/// `pixels` is a value: handing it to a frame and then drawing the next one copies on write, so
/// an emitted frame never changes, and a "restore to previous" snapshot costs nothing until then.
struct GIFCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(size: PixelSize) {
        width = size.width
        height = size.height
        pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
    }

    /// Decodes the frame's rows from `reader` and paints every pixel that is not the transparent
    /// index; pixels outside the canvas are decoded and dropped. Returns whether any pixel on the
    /// canvas was the transparent index (a declared but unused index does not count).
    @discardableResult
    mutating func draw(_ frame: GIFFrameHeader, from reader: GIFReader) throws -> Bool {
        guard frame.width > 0, frame.height > 0 else {
            try reader.skipImageData()
            return false
        }
        let palette = GIFCanvas.paletteTable(frame.colorMap, transparentIndex: frame.control.transparentIndex)
        let firstColumn = max(0, frame.left)
        let endColumn = min(width, frame.left + frame.width)
        let canvasWidth = width
        let canvasHeight = height
        var row = [UInt8](repeating: 0, count: frame.width)
        var usedTransparency = false
        try pixels.withUnsafeMutableBytes { canvas in
            try palette.withUnsafeBytes { colors in
                try row.withUnsafeMutableBufferPointer { row in
                    for frameRow in GIFCanvas.rowOrder(height: frame.height, interlaced: frame.interlaced) {
                        guard try reader.readRow(into: row) else { return }
                        let y = frame.top + frameRow
                        guard y < canvasHeight, firstColumn < endColumn else { continue }
                        let rowStart = y * canvasWidth * 4
                        for x in firstColumn..<endColumn {
                            let color = colors.loadUnaligned(fromByteOffset: Int(row[x - frame.left]) * 4, as: UInt32.self)
                            if color != GIFCanvas.skip {
                                canvas.storeBytes(of: color, toByteOffset: rowStart + x * 4, as: UInt32.self)
                            } else {
                                usedTransparency = true
                            }
                        }
                    }
                }
            }
        }
        return usedTransparency
    }

    /// Clears the part of `frame`'s rectangle that lies on the canvas (restore to background).
    mutating func clear(_ frame: GIFFrameHeader) {
        let firstColumn = max(0, frame.left)
        let endColumn = min(width, frame.left + frame.width)
        let firstRow = max(0, frame.top)
        let endRow = min(height, frame.top + frame.height)
        guard firstColumn < endColumn, firstRow < endRow else { return }
        let canvasWidth = width
        pixels.withUnsafeMutableBufferPointer { canvas in
            for y in firstRow..<endRow {
                let start = (y * canvasWidth + firstColumn) * 4
                canvas[start..<(start + (endColumn - firstColumn) * 4)].update(repeating: 0)
            }
        }
    }

    /// Puts back a snapshot taken before a "restore to previous" frame.
    mutating func restore(_ snapshot: [UInt8]) {
        pixels = snapshot
    }

    /// The word for the transparent index; every other entry is opaque, so none can equal it.
    private static let skip: UInt32 = 0

    /// 256 RGBA entries (1,024 bytes) indexed by pixel value. Indexes past the colour table (or
    /// every index, when the file has no table) are opaque black, as browsers draw them.
    private static func paletteTable(_ colors: [RGBA]?, transparentIndex: Int?) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256 * 4)
        for index in 0..<256 where index != transparentIndex {
            if let colors, index < colors.count {
                table[index * 4] = colors[index].r
                table[index * 4 + 1] = colors[index].g
                table[index * 4 + 2] = colors[index].b
            }
            table[index * 4 + 3] = 255
        }
        return table
    }

    /// Frame rows in the order they are stored: top to bottom, or the four interlace passes
    /// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        let passes = [(start: 0, step: 8), (start: 4, step: 8), (start: 2, step: 4), (start: 1, step: 2)]
        return passes.flatMap { stride(from: $0.start, to: height, by: $0.step) }
    }
}
