import Foundation
import Synchronization

/// An animation that keeps its encoded bytes and decodes frames when asked: SDWebImage's
/// `SDAnimatedImage`. Frame count, loop count and durations come from a walk over the headers;
/// ``frame(at:)`` composites from where the last call left off (disposal and blending need the
/// frames before), so playing forward costs one frame's decode per frame; going back resumes
/// from the nearest checkpoint (see ``cost``). Memory is the bytes plus one canvas, whatever the
/// frame count, where ``Image``'s eager frames hold every frame (or are scaled down to fit the
/// animation budget).
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
    private let layout: AnimationHeader.Layout
    private let canvasSize: PixelSize
    private let options: ImageDecodeOptions
    private let colorTransform: ColorTransform?
    private let cursor = Mutex(FrameCursor())

    /// Reads the headers of an animated GIF, APNG or WebP (a still one is a 1-frame animation).
    /// `options` apply as to a decode: the pixel limit on the canvas, a thumbnail box or
    /// ``ImageDecodeOptions/scaleDownLimitBytes`` (per frame) sizes every frame, colour is
    /// converted to sRGB. The animation budget does not apply: frames are never all in memory.
    /// Throws ``ImageCoderError``.
    public convenience init(data: Data, options: ImageDecodeOptions = .default) throws {
        if data.isEmpty { throw ImageCoderError.emptyData }
        let header = try data.withUnsafeBytes { bytes in
            try AnimationHeader(bytes, layout: try AnimationHeader.Layout(bytes, options: options), options: options)
        }
        self.init(data: data, header: header, options: options)
    }

    /// An animation of two or more frames in a format decoded frame by frame (GIF, APNG,
    /// animated WebP), or nil — a still, another format — without reading further than the
    /// header needs (``OnDemandAnimationCoder``).
    static func onDemand(_ data: Data, options: ImageDecodeOptions) throws -> AnimatedImage? {
        guard !data.isEmpty else { return nil }
        let header = try data.withUnsafeBytes { bytes -> AnimationHeader? in
            let layout = try AnimationHeader.Layout(bytes, options: options)
            guard layout.decodesOnDemand else { return nil }
            return try AnimationHeader(bytes, layout: layout, options: options)
        }
        guard let header, header.durations.count > 1 else { return nil }
        return AnimatedImage(data: data, header: header, options: options)
    }

    /// The headers were read from `data`'s bytes where they were; only now are they pinned.
    private init(data: Data, header: AnimationHeader, options: ImageDecodeOptions) {
        self.bytes = PinnedBytes(data)
        self.layout = header.layout
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

    /// Bytes held: the encoded file and one compositing canvas, and as many again as the
    /// checkpoints a backward-playing animation keeps (what a memory cache should count).
    public var cost: Int {
        let canvas = canvasSize.pixelCount * Bitmap.bytesPerPixel
        // Formats decoded whole hold every frame once the first is asked for.
        guard layout.decodesOnDemand else { return bytes.buffer.count + canvas * frameCount }
        return bytes.buffer.count + canvas * (1 + checkpointLimit)
    }

    /// Canvases kept to resume from when frames are asked for backwards (reversed and bounce
    /// modes, seeks): up to 32 MB of them, at most 16, spread evenly over the animation, so a
    /// frame costs at most `checkpointInterval` composites instead of all frames before it.
    /// GIF and APNG; libwebp's animation decoder cannot resume, so WebP starts over.
    private var checkpointLimit: Int {
        guard layout.decodesOnDemand, layout.canResume, frameCount >= 3 else { return 0 }
        return max(1, min(16, (32 << 20) / max(1, canvasSize.pixelCount * Bitmap.bytesPerPixel)))
    }

    private var checkpointInterval: Int { max(1, frameCount / (checkpointLimit + 1)) }

    /// Frame `index` (0-based) as shown: composited, at ``pixelSize``, in sRGB. Forward from the
    /// last frame asked for costs the frames between; backward resumes from the nearest
    /// checkpoint before it (or the first frame). Throws ``ImageCoderError`` (a frame the header
    /// walk counted that will not decode is corrupt); the next call starts over.
    public func frame(at index: Int) throws -> Bitmap {
        precondition(index >= 0 && index < frameCount, "frame \(index) of \(frameCount)")
        return try cursor.withLock { cursor in
            if let last = cursor.last, last.index == index { return last.bitmap }
            if index < cursor.nextIndex, cursor.sequence?.seek(to: index) == true { cursor.nextIndex = index }
            if cursor.sequence == nil || index < cursor.nextIndex {
                // Going back: from here on, replays leave checkpoints to resume from.
                if cursor.sequence != nil { cursor.recordsCheckpoints = true }
                cursor.sequence = nil  // frees the old canvas before the new one is made
                if let (start, resume) = cursor.checkpoints.filter({ $0.key <= index }).max(by: { $0.key < $1.key }) {
                    cursor.sequence = try resume()
                    cursor.nextIndex = start
                } else {
                    cursor.sequence = try AnimationHeader.sequence(layout, bytes, options: options)
                    cursor.nextIndex = 0
                }
            }
            var canvas: [UInt8] = []
            while cursor.nextIndex <= index {
                if cursor.recordsCheckpoints, cursor.nextIndex > 0, cursor.nextIndex % checkpointInterval == 0,
                   cursor.checkpoints[cursor.nextIndex] == nil, let resume = cursor.sequence?.resumable() {
                    cursor.checkpoints[cursor.nextIndex] = resume
                }
                let next: (canvas: [UInt8], duration: Double)?
                do {
                    next = try cursor.sequence?.next()
                } catch {
                    cursor.sequence = nil  // half a frame drawn: nothing to continue from
                    throw error
                }
                guard let step = next else {
                    cursor.sequence = nil
                    throw ImageCoderError.corrupt(format, reason: "frame \(cursor.nextIndex + 1) of \(frameCount) is missing")
                }
                canvas = step.canvas
                cursor.nextIndex += 1
                cursor.steps += 1
            }
            var bitmap = Bitmap(width: canvasSize.width, height: canvasSize.height, pixels: canvas)
            if pixelSize != canvasSize { bitmap = bitmap.resampled(to: pixelSize) }
            if let colorTransform { bitmap = colorTransform.convert(bitmap) }
            cursor.last = (index, bitmap)
            return bitmap
        }
    }

    /// Frames composited so far (specs check what jumps back cost).
    var compositedFrames: Int { cursor.withLock { $0.steps } }

    /// The first frame as a still ``Image`` (what a view shows before playing; SD's poster frame).
    public func posterImage(scale: Double = 1) throws -> Image {
        Image(bitmap: try frame(at: 0), scale: scale, orientation: orientation, format: format, hasAlpha: hasAlpha)
    }
}

/// Where frame decoding stands: the sequence, how far it got, the last frame handed out, and
/// the points it can resume from.
private struct FrameCursor {
    var sequence: (any AnimationFrameSequence)?
    var nextIndex = 0
    var last: (index: Int, bitmap: Bitmap)?
    /// Sequences resuming at a frame index (the key: the frame they produce next), recorded only
    /// once playback has gone back (played forward, an animation never pays for them).
    var checkpoints: [Int: () throws -> any AnimationFrameSequence] = [:]
    var recordsCheckpoints = false
    /// Frames composited so far, for specs.
    var steps = 0
}
