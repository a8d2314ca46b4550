/// An animation composited one frame after another from its bytes: each animated decoder's
/// canvas, disposal and blending, one step per call. The eager decoders run it to the end;
/// ``AnimatedImage`` runs it as far as the frame it is asked for, and starts a new one to go back.
protocol AnimationFrameSequence: AnyObject {
    /// The canvas every frame is composited on.
    var canvasSize: PixelSize { get }
    /// The canvas after the next frame (straight RGBA8, canvas size) and how long that frame
    /// shows; nil after the last frame.
    func next() throws -> (canvas: [UInt8], duration: Double)?
    /// Makes a sequence that continues from where this one is now, for a later jump back here;
    /// nil when the format's decoder cannot be resumed (libwebp's animation decoder).
    func resumable() -> (() throws -> any AnimationFrameSequence)?
    /// Moves straight to frame `index` when the frames are all at hand; false otherwise.
    func seek(to index: Int) -> Bool
}

extension AnimationFrameSequence {
    func resumable() -> (() throws -> any AnimationFrameSequence)? { nil }
    func seek(to index: Int) -> Bool { false }
}
