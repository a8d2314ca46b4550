import Foundation

/// A decoded image: immutable, shareable across threads, and cheap to pass around.
///
/// Pixels are straight RGBA8 (see ``Bitmap``). Animated images carry every frame; a still image has
/// exactly one. The encoded bytes it came from stay beside it (``originalData``) so a cache can
/// store them without re-encoding, as SDWebImage stores original data.
public final class Image: Sendable {
    /// At least one frame; more for an animation.
    public let frames: [ImageFrame]
    /// Times an animation plays; 0 means forever. A GIF without loop metadata plays once (1).
    public let loopCount: Int
    /// Pixels per point, from `@2x`/`@3x` in the key or the request (``ImageScale``).
    public let scale: Double
    /// EXIF orientation; pixels are stored as encoded, not rotated.
    public let orientation: ImageOrientation
    /// The format the image was decoded from (`.undefined` when made in memory).
    public let format: ImageFormat
    /// The encoded bytes this image was decoded from, when they are the whole file.
    public let originalData: Data?
    /// Whether the source declares transparency (alpha channel, tRNS, transparent GIF index...).
    public let hasAlpha: Bool
    /// A partial image from incremental decoding: more data will give a better one.
    public let isIncremental: Bool
    /// Memory-cache cost in bytes: bytesPerRow × height × unique frames, plus an
    /// ``animatedImage``'s bytes and canvas.
    public let cost: Int
    /// The ICC profile the pixels are in; `nil` means sRGB. Decoders convert to sRGB by default,
    /// so this is set only when a decode kept the pixels as encoded
    /// (``ImageDecodeOptions/convertsToSRGB`` false); encoders then embed it.
    public let colorProfile: ColorProfile?
    /// The animation behind this image when it was loaded to play on demand
    /// (``OnDemandAnimationCoder``, SD's `SDAnimatedImage`): ``frames`` then holds only the poster
    /// frame, and an ``AnimatedImagePlayer`` plays this. Transforming the image drops it.
    public let animatedImage: AnimatedImage?

    public init(
        frames: [ImageFrame],
        loopCount: Int = 0,
        scale: Double = 1,
        orientation: ImageOrientation = .up,
        format: ImageFormat = .undefined,
        originalData: Data? = nil,
        hasAlpha: Bool? = nil,
        isIncremental: Bool = false,
        colorProfile: ColorProfile? = nil,
        animatedImage: AnimatedImage? = nil
    ) {
        precondition(!frames.isEmpty, "an image has at least one frame")
        self.frames = frames
        self.loopCount = max(0, loopCount)
        self.scale = scale > 0 ? scale : 1
        self.orientation = orientation
        self.format = format
        self.originalData = originalData
        self.hasAlpha = hasAlpha ?? frames.contains { $0.bitmap.containsTransparency }
        self.isIncremental = isIncremental
        self.cost = Image.cost(of: frames) + (animatedImage?.cost ?? 0)
        self.colorProfile = colorProfile
        self.animatedImage = animatedImage
    }

    /// A still image from one bitmap.
    public convenience init(
        bitmap: Bitmap, scale: Double = 1, orientation: ImageOrientation = .up,
        format: ImageFormat = .undefined, originalData: Data? = nil, hasAlpha: Bool? = nil,
        isIncremental: Bool = false, colorProfile: ColorProfile? = nil
    ) {
        self.init(
            frames: [ImageFrame(bitmap: bitmap)], loopCount: 0, scale: scale, orientation: orientation,
            format: format, originalData: originalData, hasAlpha: hasAlpha, isIncremental: isIncremental,
            colorProfile: colorProfile)
    }

    /// The first frame's pixels (the poster frame of an animation).
    public var bitmap: Bitmap { frames[0].bitmap }
    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }
    public var pixelSize: PixelSize { bitmap.size }
    /// Size in points: pixels divided by ``scale``.
    public var pointSize: (width: Double, height: Double) {
        (Double(width) / scale, Double(height) / scale)
    }
    public var isAnimated: Bool { frames.count > 1 }
    /// One loop's total duration in seconds.
    public var duration: Double { frames.reduce(0) { $0 + $1.duration } }

    /// The same pixels with other metadata (used when a cache key carries a scale, say).
    public func with(scale: Double? = nil, originalData: Data?? = nil, isIncremental: Bool? = nil) -> Image {
        Image(
            frames: frames, loopCount: loopCount, scale: scale ?? self.scale, orientation: orientation,
            format: format, originalData: originalData ?? self.originalData, hasAlpha: hasAlpha,
            isIncremental: isIncremental ?? self.isIncremental, colorProfile: colorProfile, animatedImage: animatedImage)
    }

    /// Frames sharing one pixel buffer (a GIF frame that changes nothing) are counted once.
    static func cost(of frames: [ImageFrame]) -> Int {
        var seen = Set<UnsafeRawPointer?>()
        var total = 0
        for frame in frames {
            let identity = frame.bitmap.pixels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            if seen.insert(identity).inserted {
                total += frame.bitmap.bytesPerRow * frame.bitmap.height
            }
        }
        return total
    }
}
