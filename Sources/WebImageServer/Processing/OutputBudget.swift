import WebImage

/// What one variant may allocate: pixels per frame, RGBA bytes over all frames of an animation,
/// and the bytes alive at once (the request's share of the server's memory). Every step a variant
/// passes through is checked here before its bitmap is made, so a geometry or a filter that grows
/// past a limit is a 413, never an allocation the process cannot survive.
public struct OutputBudget: Sendable, Hashable {
    /// Largest frame, in pixels.
    public var pixels: Int
    /// Largest animation, in RGBA bytes over all its frames.
    public var animationBytes: Int
    /// Most bytes alive at once while one step runs: the image it reads, the one it makes and
    /// its scratch.
    public var bytes: Int
    /// Most pixel passes all steps may make together (each step's passes over the pixels it makes).
    public var pixelPasses: Int

    public init(pixels: Int, animationBytes: Int, bytes: Int = .max, pixelPasses: Int = .max) {
        self.pixels = pixels
        self.animationBytes = animationBytes
        self.bytes = bytes
        self.pixelPasses = pixelPasses
    }

    public static let unlimited = OutputBudget(pixels: .max, animationBytes: .max)

    /// Thrown when a size or a step's bytes do not fit.
    public struct Exceeded: Error, Sendable, Hashable {
        public var size: PixelSize
        public var frames: Int
        /// The bytes the step needed, when it was they that did not fit.
        public var bytes: Int?
        /// The pixel passes the steps so far needed, when it was they that did not fit.
        public var pixelPasses: Int? = nil
    }

    /// Throws when `frames` frames of `size` do not fit.
    public func check(_ size: PixelSize, frames: Int) throws(Exceeded) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, size.width >= 0, size.height >= 0, pixels <= self.pixels else { throw Exceeded(size: size, frames: frames) }
        guard frames > 1 else { return }
        let (bytes, overflowed) = pixels.multipliedReportingOverflow(by: 4 * frames)
        guard !overflowed, bytes <= animationBytes else { throw Exceeded(size: size, frames: frames) }
    }

    /// Throws when a step making `frames` frames of `size` with `bytes` alive at its peak does not fit.
    public func check(bytes: Int, size: PixelSize, frames: Int) throws(Exceeded) {
        try check(size, frames: frames)
        guard bytes <= self.bytes else { throw Exceeded(size: size, frames: frames, bytes: bytes) }
    }

    /// Throws when `pixelPasses`, the steps' work so far, does not fit.
    public func check(pixelPasses: Int, size: PixelSize, frames: Int) throws(Exceeded) {
        guard pixelPasses <= self.pixelPasses else { throw Exceeded(size: size, frames: frames, pixelPasses: pixelPasses) }
    }
}
