/// One animation frame as its `fcTL` chunk describes it, with the chunks that hold its pixels.
struct APNGFrame {
    /// The frame rectangle, always inside the canvas (the parser rejects others).
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    var delayNumerator: Int
    var delayDenominator: Int
    var dispose: APNGDispose
    var blend: APNGBlend
    /// The zlib stream's pieces: IDAT data for the default image, fdAT data after the sequence
    /// number otherwise, in file order.
    var data: [Range<Int>] = []

    /// Seconds; a 0 denominator means 1/100 s (the spec), and SDWebImage's rule plays anything
    /// under 11 ms at 100 ms, as for GIF.
    var duration: Double {
        AnimationFrames.displayDuration(
            seconds: Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator))
    }
}

/// What happens to a frame's area before the next frame (`dispose_op`).
enum APNGDispose: UInt8 {
    /// Left as it is.
    case none = 0
    /// Cleared to transparent black.
    case background = 1
    /// Put back as it was before the frame.
    case previous = 2
}

/// How a frame meets the canvas (`blend_op`).
enum APNGBlend: UInt8 {
    /// Replaces the pixels of its rectangle, alpha included.
    case source = 0
    /// Composited over them (Porter-Duff "over").
    case over = 1
}
