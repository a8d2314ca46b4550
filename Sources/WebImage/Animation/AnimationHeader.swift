import CWebP
import Foundation

/// What an ``AnimatedImage`` needs before any frame: sizes, timing and colour from the headers of
/// a GIF, APNG or animated WebP, and the frame sequence for each. Other formats (stills, AVIF and
/// JPEG XL sequences) are decoded whole once, through the default coders, and served from memory.
struct AnimationHeader {
    var format: ImageFormat
    var canvasSize: PixelSize
    var durations: [Double]
    var loopCount: Int
    var orientation: ImageOrientation = .up
    var hasAlpha: Bool
    var colorProfile: ColorProfile?

    /// How the bytes are laid out, found once: what the header walk and every sequence start from.
    enum Layout: Sendable {
        case gif
        case apng(APNGContainer)
        case animatedWebP(WebPBitstreamFeatures)
        /// Stills, AVIF and JPEG XL sequences: decoded whole.
        case other

        /// Whether its sequences can continue from a checkpoint (libwebp's animation decoder cannot).
        var canResume: Bool {
            switch self {
            case .gif, .apng: true
            case .animatedWebP, .other: false
            }
        }

        /// Whether frames are decoded one at a time (else all at once, and kept).
        var decodesOnDemand: Bool {
            if case .other = self { return false }
            return true
        }

        /// From the signature and, for PNG and WebP, the chunks that say whether they animate;
        /// no frame is read.
        init(_ bytes: UnsafeRawBufferPointer, options: ImageDecodeOptions) throws {
            switch ImageFormat.detect(bytes) {
            case .gif: self = .gif
            case .png: self = try APNGContainer.parse(bytes, checking: options).map(Layout.apng) ?? .other
            case .webp:
                let features = try WebPStatus.features(of: bytes)
                self = features.has_animation != 0 ? .animatedWebP(features) : .other
            default: self = .other
            }
        }
    }

    let layout: Layout

    init(_ bytes: UnsafeRawBufferPointer, layout: Layout, options: ImageDecodeOptions) throws {
        format = ImageFormat.detect(bytes)
        self.layout = layout
        let limit = options.maxPixelCount
        switch layout {
        case .gif:
            let scan = try GIFScan(bytes: bytes, maxPixelCount: limit)
            (canvasSize, durations, loopCount, hasAlpha) = (scan.canvasSize, scan.durations, scan.loopCount, scan.declaresTransparency)
        case .apng(let container):
            // The chunks before the first frame's data hold the header, tRNS and the colour.
            let still = PNGPushDecoder(maxPixelCount: limit)
            let headerEnd = container.frames.first?.data.first?.lowerBound ?? bytes.count
            try still.feedUntilHeader(Data(UnsafeRawBufferPointer(rebasing: bytes[..<headerEnd])))
            (canvasSize, durations, loopCount, hasAlpha) = (container.canvasSize, container.frames.map(\.duration), container.loopCount, still.hasAlpha)
            colorProfile = still.colorProfile
        case .animatedWebP(let features):
            canvasSize = PixelSize(width: Int(features.width), height: Int(features.height))
            try options.checkPixelLimit(width: canvasSize.width, height: canvasSize.height)
            guard let timing = WebPMetadata.withDemuxer(bytes, { WebPMetadata.timing(of: $0) }) else { throw WebPMetadata.demuxFailure(bytes) }
            (durations, loopCount, hasAlpha) = (timing.durations, timing.loopCount, features.has_alpha != 0)
            orientation = WebPMetadata.orientation(in: bytes)
            colorProfile = WebPMetadata.colorProfile(in: bytes)
        case .other:
            let image = try EagerFrameSequence.decode(bytes, options: options)
            (canvasSize, loopCount, orientation, hasAlpha) = (image.pixelSize, image.loopCount, image.orientation, image.hasAlpha)
            durations = image.frames.map(\.duration)
        }
        guard !durations.isEmpty else { throw ImageCoderError.corrupt(format, reason: "no frames") }
    }

    /// A new sequence over `bytes` from the first frame.
    static func sequence(_ layout: Layout, _ bytes: PinnedBytes, options: ImageDecodeOptions) throws -> any AnimationFrameSequence {
        let (buffer, limit) = (bytes.buffer, options.maxPixelCount)
        switch layout {
        case .gif: return try GIFFrameSequence(bytes: buffer, maxPixelCount: limit, owner: bytes)
        case .apng(let container): return APNGFrameSequence(container: container, bytes: buffer, maxPixelCount: limit, owner: bytes)
        case .animatedWebP(let features): return try WebPFrameSequence(bytes: buffer, features: features, maxPixelCount: limit, owner: bytes)
        case .other: return EagerFrameSequence(try EagerFrameSequence.decode(buffer, options: options))
        }
    }
}

/// Frames a coder decoded all at once, handed out one by one (stills, AVIF and JPEG XL sequences).
final class EagerFrameSequence: AnimationFrameSequence {
    private let image: Image
    private var index = 0

    init(_ image: Image) {
        self.image = image
    }

    /// Full size (``AnimatedImage`` sizes each frame itself), colour as the options say.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecodeOptions) throws -> Image {
        var full = options
        full.thumbnailPixelSize = nil
        full.scaleDownLimitBytes = nil
        return try ImageCodersManager.shared.decode(Data(bytes), options: full)
    }

    var canvasSize: PixelSize { image.pixelSize }

    func seek(to index: Int) -> Bool {
        self.index = index
        return true
    }

    func next() throws -> (canvas: [UInt8], duration: Double)? {
        guard index < image.frames.count else { return nil }
        defer { index += 1 }
        return (image.frames[index].bitmap.pixels, image.frames[index].duration)
    }
}
