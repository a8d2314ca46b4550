/// One frame of an image: its pixels and, for animations, how long it shows.
public struct ImageFrame: Sendable, Hashable {
    public let bitmap: Bitmap
    /// Seconds this frame is displayed; 0 for still images.
    public let duration: Double

    public init(bitmap: Bitmap, duration: Double = 0) {
        self.bitmap = bitmap
        self.duration = duration
    }
}
