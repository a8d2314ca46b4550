/// Collects an animation's frames from successive canvas states: each scaled to the decode
/// target when there is one, and a frame that changed nothing shares the previous frame's
/// buffer (``Image/cost`` counts shared buffers once).
struct AnimationFrames {
    let target: PixelSize?
    private(set) var frames: [ImageFrame] = []
    private var previous: (canvas: [UInt8], bitmap: Bitmap)?

    init(target: PixelSize?) {
        self.target = target
    }

    /// Adds the canvas as it is now. Passing the canvas's own array is cheap (copy on write).
    mutating func append(canvas pixels: [UInt8], size: PixelSize, duration: Double) {
        let bitmap: Bitmap
        if let previous, previous.canvas == pixels {
            bitmap = previous.bitmap
        } else {
            let full = Bitmap(width: size.width, height: size.height, pixels: pixels)
            bitmap = target.map { full.resampled(to: $0) } ?? full
            previous = (pixels, bitmap)
        }
        frames.append(ImageFrame(bitmap: bitmap, duration: duration))
    }

    /// The frames; a single frame is a still image and carries no duration.
    var result: [ImageFrame] {
        frames.count == 1 ? [ImageFrame(bitmap: frames[0].bitmap)] : frames
    }

    /// SDWebImage's (and browsers') rule: delays under 11 ms — 0 and 1 centisecond, which old
    /// tools wrote to mean "as fast as possible" — play at 100 ms.
    static func displayDuration(seconds: Double) -> Double {
        seconds < 0.011 ? 0.1 : seconds
    }
}
