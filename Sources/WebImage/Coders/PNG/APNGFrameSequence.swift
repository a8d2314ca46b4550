/// An APNG's frames composited in order: each frame's pixels decoded by libpng from its own
/// stream, blended over what the previous frame's disposal left.
final class APNGFrameSequence: AnimationFrameSequence {
    let container: APNGContainer
    /// Whether a frame so far had an alpha channel or tRNS.
    private(set) var declaresAlpha = false
    /// The file's colour (iCCP, sRGB, cHRM/gAMA: chunks every frame's stream shares), once a
    /// frame was decoded.
    private(set) var colorProfile: ColorProfile?
    private let bytes: UnsafeRawBufferPointer
    private let maxPixelCount: Int
    private var canvas: APNGCanvas
    private var index = 0
    private var shown: (frame: APNGFrame, before: [UInt8]?)?
    /// Keeps `bytes` alive when the sequence outlives its caller's buffer.
    private let owner: AnyObject?

    init(container: APNGContainer, bytes: UnsafeRawBufferPointer, maxPixelCount: Int, owner: AnyObject? = nil) {
        self.container = container
        self.bytes = bytes
        self.maxPixelCount = maxPixelCount
        self.owner = owner
        canvas = APNGCanvas(size: container.canvasSize)
    }

    var canvasSize: PixelSize { container.canvasSize }

    /// A sequence that goes on from here, its canvas a copy (on write) of this one's.
    func resumable() -> (() throws -> any AnimationFrameSequence)? {
        let state = (index: index, canvas: canvas, shown: shown, declaresAlpha: declaresAlpha)
        let (container, bytes, limit, owner) = (container, bytes, maxPixelCount, owner)
        return {
            let sequence = APNGFrameSequence(container: container, bytes: bytes, maxPixelCount: limit, owner: owner)
            (sequence.index, sequence.canvas, sequence.shown, sequence.declaresAlpha) = (state.index, state.canvas, state.shown, state.declaresAlpha)
            return sequence
        }
    }

    func next() throws -> (canvas: [UInt8], duration: Double)? {
        if let (frame, before) = shown {
            switch frame.dispose {
            case .none: break
            case .background: canvas.clear(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
            // On the first frame this restores the empty canvas, which is what the spec asks
            // ("treat as background") since nothing else was drawn yet.
            case .previous: if let before { canvas.restore(before) }
            }
            shown = nil
        }
        guard index < container.frames.count else { return nil }
        let frame = container.frames[index]
        index += 1
        let (pixels, hasAlpha, profile) = try APNGDecoding.decodePixels(
            of: frame, number: index, in: container, bytes: bytes, maxPixelCount: maxPixelCount)
        colorProfile = profile
        declaresAlpha = declaresAlpha || hasAlpha
        let before = frame.dispose == .previous ? canvas.pixels : nil
        canvas.draw(pixels, x: frame.x, y: frame.y, blend: frame.blend)
        shown = (frame, before)
        return (canvas.pixels, frame.duration)
    }
}
