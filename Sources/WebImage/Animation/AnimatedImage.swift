import Foundation
import Synchronization

/// An animation that keeps its encoded bytes and decodes frames when asked: SDWebImage's
/// `SDAnimatedImage`. Frame count, loop count and durations come from a walk over the headers;
/// ``frame(at:)`` composites from where the last call left off (disposal and blending need the
/// frames before), so playing forward costs one frame's decode per frame. Memory is the bytes
/// plus one canvas, whatever the frame count: a 300-frame 1080p GIF is its file size + 8 MB,
/// where ``Image``'s eager frames would be 2.4 GB (or scaled down to fit the animation budget).
///
/// GIF, APNG and animated WebP. Thread-safe: frame decodes are serialised.
public final class AnimatedImage: Sendable {
    public let format: ImageFormat
    /// The size frames come out at: the canvas, or the thumbnail box of the options it was made with.
    public let pixelSize: PixelSize
    public let frameCount: Int
    /// Times the animation plays; 0 means forever (as ``Image/loopCount``).
    public let loopCount: Int
    /// Each frame's display time in seconds (the decoders' rules: GIF/WebP delays under 11 ms play at 100 ms).
    public let frameDurations: [Double]
    /// EXIF orientation (WebP); frames are as stored.
    public let orientation: ImageOrientation
    /// Whether the file declares transparency (an alpha channel, a transparent GIF index).
    public let hasAlpha: Bool

    private let bytes: PinnedBytes
    private let canvasSize: PixelSize
    private let options: ImageDecodeOptions
    private let colorTransform: ColorTransform?
    private let cursor = Mutex(FrameCursor())

    /// Reads the headers of an animated GIF, APNG or WebP (a still one is a 1-frame animation).
    /// `options` apply as to a decode: the pixel limit on the canvas, a thumbnail box or
    /// ``ImageDecodeOptions/scaleDownLimitBytes`` (per frame) sizes every frame, colour is
    /// converted to sRGB. The animation budget does not apply: frames are never all in memory.
    /// Throws ``ImageCoderError``.
    public init(data: Data, options: ImageDecodeOptions = .default) throws {
        if data.isEmpty { throw ImageCoderError.emptyData }
        let bytes = PinnedBytes(data)
        let header = try AnimationHeader(bytes.buffer, options: options)
        self.bytes = bytes
        self.options = options
        format = header.format
        canvasSize = header.canvasSize
        frameCount = header.durations.count
        frameDurations = header.durations
        loopCount = header.loopCount
        orientation = header.orientation
        hasAlpha = header.hasAlpha
        pixelSize = options.targetSize(for: header.canvasSize) ?? header.canvasSize
        colorTransform = options.convertsToSRGB ? header.colorProfile.flatMap { profile in
            if case .transform(let transform) = ColorTransform.toSRGB(from: profile) { return transform }
            return nil
        } : nil
    }

    /// The encoded bytes (the same memory the frames are decoded from).
    public var data: Data { bytes.data }

    /// One loop's total duration in seconds.
    public var duration: Double { frameDurations.reduce(0, +) }

    /// Bytes held: the encoded file and one compositing canvas (what a memory cache should count).
    public var cost: Int { bytes.buffer.count + canvasSize.pixelCount * Bitmap.bytesPerPixel }

    /// Frame `index` (0-based) as shown: composited, at ``pixelSize``, in sRGB. Forward from the
    /// last frame asked for costs the frames between; backward starts again from the first.
    /// Throws ``ImageCoderError`` (a frame the header walk counted that will not decode is corrupt).
    public func frame(at index: Int) throws -> Bitmap {
        precondition(index >= 0 && index < frameCount, "frame \(index) of \(frameCount)")
        return try cursor.withLock { cursor in
            if let last = cursor.last, last.index == index { return last.bitmap }
            if cursor.sequence == nil || index < cursor.nextIndex {
                cursor.sequence = nil  // frees the old canvas before the new one is made
                cursor.sequence = try AnimationHeader.sequence(format, bytes, options: options)
                cursor.nextIndex = 0
            }
            var canvas: [UInt8] = []
            while cursor.nextIndex <= index {
                guard let step = try cursor.sequence?.next() else {
                    throw ImageCoderError.corrupt(format, reason: "frame \(cursor.nextIndex + 1) of \(frameCount) is missing")
                }
                canvas = step.canvas
                cursor.nextIndex += 1
            }
            var bitmap = Bitmap(width: canvasSize.width, height: canvasSize.height, pixels: canvas)
            if pixelSize != canvasSize { bitmap = bitmap.resampled(to: pixelSize) }
            if let colorTransform { bitmap = colorTransform.convert(bitmap) }
            cursor.last = (index, bitmap)
            return bitmap
        }
    }

    /// The first frame as a still ``Image`` (what a view shows before playing; SD's poster frame).
    public func posterImage(scale: Double = 1) throws -> Image {
        Image(bitmap: try frame(at: 0), scale: scale, orientation: orientation, format: format, hasAlpha: hasAlpha)
    }
}

/// Where frame decoding stands: the sequence, how far it got, and the last frame handed out.
private struct FrameCursor {
    var sequence: (any AnimationFrameSequence)?
    var nextIndex = 0
    var last: (index: Int, bitmap: Bitmap)?
}
