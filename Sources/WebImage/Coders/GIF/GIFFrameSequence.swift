/// A GIF's frames composited in order: each frame drawn over what the previous one's disposal
/// left (kept, cleared to transparent, or restored to the canvas before it).
final class GIFFrameSequence: AnimationFrameSequence {
    let canvasSize: PixelSize
    /// Whether a frame drew with its transparent index so far (a declared but unused index does
    /// not count).
    private(set) var usedTransparency = false
    private let reader: GIFReader
    private let maxPixelCount: Int
    private var canvas: GIFCanvas
    private var upcoming: GIFFrameHeader?
    /// The frame shown last and, for "restore to previous", the canvas before it.
    private var shown: (frame: GIFFrameHeader, before: [UInt8]?)?
    /// Keeps the bytes `reader` reads alive when the sequence outlives its caller's buffer.
    private let owner: AnyObject?

    /// Reads up to the first frame's header: the canvas size depends on it when the screen is empty.
    init(bytes: UnsafeRawBufferPointer, maxPixelCount: Int, owner: AnyObject? = nil) throws {
        self.owner = owner
        self.maxPixelCount = maxPixelCount
        reader = try GIFReader(bytes: bytes)
        try GIFScan.checkScreen(reader.screenSize, maxPixelCount: maxPixelCount)
        guard let first = try reader.nextFrame() else { throw ImageCoderError.corrupt(.gif, reason: "no image in the file") }
        canvasSize = GIFScan.canvasSize(screen: reader.screenSize, firstFrame: first)
        try GIFScan.checkScreen(canvasSize, maxPixelCount: maxPixelCount)
        canvas = GIFCanvas(size: canvasSize)
        upcoming = first
    }

    /// The NETSCAPE loop count, once the reader has passed it (it precedes the first frame in
    /// practice); nil when absent.
    var loopCount: Int? { reader.loopCount }

    /// A sequence over the same bytes that goes on from here, its canvas a copy (on write) of
    /// this one's; nil before the first frame.
    func resumable() -> (() throws -> any AnimationFrameSequence)? {
        guard upcoming == nil else { return nil }
        let state = (position: reader.position, framesRead: reader.framesRead, loopCount: reader.loopCount,
                     canvas: canvas, shown: shown, usedTransparency: usedTransparency)
        let (bytes, limit, owner, size) = (reader.bytes, maxPixelCount, owner, canvasSize)
        return {
            let reader = try GIFReader(bytes: bytes, resumingAt: state.position, framesRead: state.framesRead, loopCount: state.loopCount)
            return GIFFrameSequence(reader: reader, canvasSize: size, canvas: state.canvas, shown: state.shown,
                                    usedTransparency: state.usedTransparency, maxPixelCount: limit, owner: owner)
        }
    }

    private init(reader: GIFReader, canvasSize: PixelSize, canvas: GIFCanvas, shown: (frame: GIFFrameHeader, before: [UInt8]?)?,
                 usedTransparency: Bool, maxPixelCount: Int, owner: AnyObject?) {
        self.reader = reader
        self.canvasSize = canvasSize
        self.canvas = canvas
        self.shown = shown
        self.usedTransparency = usedTransparency
        self.maxPixelCount = maxPixelCount
        self.owner = owner
    }

    func next() throws -> (canvas: [UInt8], duration: Double)? {
        if let (frame, before) = shown {
            switch frame.control.disposal {
            case .keep: break
            case .background: canvas.clear(frame)
            case .previous: if let before { canvas.restore(before) }
            }
            shown = nil
        }
        guard let frame = try upcoming ?? reader.nextFrame() else { return nil }
        upcoming = nil
        try GIFScan.checkFrame(frame, maxPixelCount: maxPixelCount)
        let before = frame.control.disposal == .previous ? canvas.pixels : nil
        if try canvas.draw(frame, from: reader) { usedTransparency = true }
        shown = (frame, before)
        return (canvas.pixels, frame.control.duration)
    }
}
