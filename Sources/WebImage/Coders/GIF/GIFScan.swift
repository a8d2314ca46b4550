/// One pass over a GIF's structure that decodes no pixels: frame count, loop count and canvas
/// size (``GIFCoder/animationInfo(of:)``), and the checks that must pass before pixel memory is
/// allocated. A cut-off or malformed structure fails here, cheaply.
struct GIFScan {
    var canvasSize: PixelSize
    var frameCount: Int
    /// 0 = forever; 1 when the file has no looping extension (it plays once).
    var loopCount: Int
    /// Each frame's display time (the 0.1 s rule applied).
    var durations: [Double]
    /// Whether any frame declares a transparent index.
    var declaresTransparency: Bool

    /// Throws ``ImageCoderError/tooLarge(width:height:limit:)`` when the logical screen or any
    /// frame's rectangle has more than `maxPixelCount` pixels.
    init(bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws {
        let reader = try GIFReader(bytes: bytes)
        try GIFScan.checkScreen(reader.screenSize, maxPixelCount: maxPixelCount)
        var first: GIFFrameHeader?
        var durations: [Double] = []
        var transparency = false
        while let frame = try reader.nextFrame() {
            try GIFScan.checkFrame(frame, maxPixelCount: maxPixelCount)
            if first == nil { first = frame }
            durations.append(frame.control.duration)
            transparency = transparency || frame.control.transparentIndex != nil
            try reader.skipImageData()
        }
        guard let first else { throw ImageCoderError.corrupt(.gif, reason: "no image in the file") }
        canvasSize = GIFScan.canvasSize(screen: reader.screenSize, firstFrame: first)
        frameCount = durations.count
        loopCount = reader.loopCount ?? 1
        self.durations = durations
        declaresTransparency = transparency
    }

    /// The logical screen; when a (broken) file declares it empty, the first frame's extent, as
    /// browsers do.
    static func canvasSize(screen: PixelSize, firstFrame: GIFFrameHeader) -> PixelSize {
        if !screen.isEmpty { return screen }
        return PixelSize(
            width: max(1, firstFrame.left + firstFrame.width), height: max(1, firstFrame.top + firstFrame.height))
    }

    static func checkScreen(_ screen: PixelSize, maxPixelCount: Int) throws {
        if screen.pixelCount > maxPixelCount {
            throw ImageCoderError.tooLarge(width: screen.width, height: screen.height, limit: maxPixelCount)
        }
    }

    /// Frame pixels are decoded even where they fall off the canvas, so a frame's own rectangle is
    /// bounded too (65535×65535 would be 4 G pixels of LZW work).
    static func checkFrame(_ frame: GIFFrameHeader, maxPixelCount: Int) throws {
        if frame.pixelCount > maxPixelCount {
            throw ImageCoderError.tooLarge(width: frame.width, height: frame.height, limit: maxPixelCount)
        }
    }
}
