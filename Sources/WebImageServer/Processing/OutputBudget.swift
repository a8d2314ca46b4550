import WebImage

/// What one variant may allocate: pixels per frame, and RGBA bytes over all frames of an
/// animation. Every size a variant passes through is checked here before its bitmap is made, so a
/// geometry that grows past the limit is a 413, never an allocation the process cannot survive.
public struct OutputBudget: Sendable, Hashable {
    /// Largest frame, in pixels.
    public var pixels: Int
    /// Largest animation, in RGBA bytes over all its frames.
    public var animationBytes: Int

    public init(pixels: Int, animationBytes: Int) {
        self.pixels = pixels
        self.animationBytes = animationBytes
    }

    public static let unlimited = OutputBudget(pixels: .max, animationBytes: .max)

    /// Thrown when a size does not fit.
    public struct Exceeded: Error, Sendable, Hashable {
        public var size: PixelSize
        public var frames: Int
    }

    /// Throws when `frames` frames of `size` do not fit.
    public func check(_ size: PixelSize, frames: Int) throws(Exceeded) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, size.width >= 0, size.height >= 0, pixels <= self.pixels else { throw Exceeded(size: size, frames: frames) }
        guard frames > 1 else { return }
        let (bytes, overflowed) = pixels.multipliedReportingOverflow(by: 4 * frames)
        guard !overflowed, bytes <= animationBytes else { throw Exceeded(size: size, frames: frames) }
    }
}
