/// The APNG output buffer: straight RGBA8, transparent black at the start of the animation.
///
/// `pixels` is a value, so emitted frames never change and a "previous" snapshot costs nothing
/// until the next frame is drawn (copy on write).
struct APNGCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(size: PixelSize) {
        width = size.width
        height = size.height
        pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
    }

    /// Puts `frame` at (`x`, `y`): replacing the pixels under it, or composited over them.
    mutating func draw(_ frame: Bitmap, x: Int, y: Int, blend: APNGBlend) {
        let columns = max(0, min(frame.width, width - x))
        let rows = max(0, min(frame.height, height - y))
        guard x >= 0, y >= 0, columns > 0, rows > 0 else { return }
        let canvasWidth = width
        frame.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { canvas in
                for row in 0..<rows {
                    let from = row * frame.bytesPerRow
                    let to = ((y + row) * canvasWidth + x) * 4
                    switch blend {
                    case .source:
                        for i in 0..<(columns * 4) { canvas[to + i] = source[from + i] }
                    case .over:
                        for column in 0..<columns {
                            APNGCanvas.over(source, from + column * 4, onto: canvas, to + column * 4)
                        }
                    }
                }
            }
        }
    }

    /// Clears a rectangle to transparent black (`dispose_op` background).
    mutating func clear(x: Int, y: Int, width frameWidth: Int, height frameHeight: Int) {
        let columns = max(0, min(frameWidth, width - x))
        let rows = max(0, min(frameHeight, height - y))
        guard x >= 0, y >= 0, columns > 0, rows > 0 else { return }
        let canvasWidth = width
        pixels.withUnsafeMutableBufferPointer { canvas in
            for row in 0..<rows {
                let start = ((y + row) * canvasWidth + x) * 4
                canvas[start..<(start + columns * 4)].update(repeating: 0)
            }
        }
    }

    /// Puts back a snapshot taken before a `dispose_op` previous frame.
    mutating func restore(_ snapshot: [UInt8]) {
        pixels = snapshot
    }

    /// Porter-Duff "over" on straight alpha, as the APNG spec writes it, rounded to nearest.
    @inline(__always)
    private static func over(
        _ source: UnsafeBufferPointer<UInt8>, _ s: Int, onto canvas: UnsafeMutableBufferPointer<UInt8>, _ d: Int
    ) {
        let sourceAlpha = Int(source[s + 3])
        if sourceAlpha == 255 {
            for i in 0..<4 { canvas[d + i] = source[s + i] }
            return
        }
        if sourceAlpha == 0 { return }
        // Weights scaled by 255²: the source's, and what shows of the destination.
        let destinationWeight = Int(canvas[d + 3]) * (255 - sourceAlpha)
        let sourceWeight = sourceAlpha * 255
        let total = sourceWeight + destinationWeight
        for i in 0..<3 {
            let mixed = Int(source[s + i]) * sourceWeight + Int(canvas[d + i]) * destinationWeight
            canvas[d + i] = UInt8((mixed + total / 2) / total)
        }
        canvas[d + 3] = UInt8((total + 127) / 255)
    }
}
