/// What an ``AnimatedImagePlayer`` plays: SDWebImage's `SDAnimatedImageProvider`. ``AnimatedImage``
/// is one; an app can supply its own (frames drawn on demand, say).
public protocol AnimatedFrameProvider: Sendable {
    var frameCount: Int { get }
    /// 0 = forever.
    var loopCount: Int { get }
    /// Seconds each frame shows.
    var frameDurations: [Double] { get }
    /// The size of every frame.
    var pixelSize: PixelSize { get }
    /// Frame `index`, decoded; called from the player's decoding queue, one call at a time.
    func frame(at index: Int) throws -> Bitmap
}

extension AnimatedImage: AnimatedFrameProvider {}
