import Foundation
import WebImage

/// The peak bytes of one variant, planned from the source's header before any work: the source's
/// bytes, the decode (its bitmap at the size it will be decoded at and the decoder's own
/// scratch), each step of the pipeline (the image it reads, the one it makes, its scratch) and the
/// encoder. Admission reserves ``peakBytes``; the work then checks every stage against that
/// reservation again, on the sizes it really has.
struct CostPlan: Sendable, Hashable {
    struct Stage: Sendable, Hashable {
        var name: String
        var bytes: Int
    }

    /// Every stage, in order, with the bytes alive while it runs (the source's bytes included).
    var stages: [Stage]

    var peakBytes: Int { stages.map(\.bytes).max() ?? 0 }

    /// The stage at the peak, for the 413's log line.
    var peakStage: Stage? { stages.max { $0.bytes < $1.bytes } }

    /// The pipeline's CPU work: each step's passes over the pixels it makes (every frame), summed.
    var pixelPasses = 0

    /// The largest frame any step makes (`fill`'s box may outgrow the variant): the output limit's check.
    var largestSize = PixelSize(width: 0, height: 0)

    /// The plan for making `processor`'s variant from a source of `sourceBytes` bytes whose
    /// header is `header`, decoded with `options`, written as one of `formats` (the dearest counted).
    init(header: ImageHeader, sourceBytes: Int, options: ImageDecodeOptions, decodeBytes: Int,
         processor: ThumborProcessor, formats: [ImageFormat], maxBytes: Int?, overlays: Overlays = .none) {
        let frames = max(1, header.frameCount)
        var stages: [Stage] = []
        if overlays != .none {
            stages.append(Stage(name: "overlays", bytes: Self.sum(sourceBytes, overlays.encodedBytes, overlays.decodeBytes)))
        }
        // The overlays' bytes and bitmaps stay alive through every later stage.
        let sourceBytes = Self.sum(sourceBytes, overlays.encodedBytes, overlays.heldBytes)
        stages.append(Stage(name: "decode", bytes: Self.sum(sourceBytes, decodeBytes)))
        let stored = options.thumbnailPixelSize.map {
            ThumbnailMath.scaledSize(header.pixelSize, fitting: $0, preserveAspectRatio: options.preserveAspectRatio)
        } ?? header.pixelSize
        let decoded = header.orientation.swapsDimensions ? PixelSize(width: stored.height, height: stored.width) : stored
        var image = Self.bitmapBytes(decoded, frames: frames)
        var size = decoded
        var largest = PixelSize(width: 0, height: 0)
        if processor.path.trim != nil {
            stages.append(Stage(name: "trim", bytes: Self.sum(sourceBytes, 2 * image)))
        }
        for step in processor.steps(decoded: decoded, oriented: header.orientation != .up, source: header.uprightSize, overlaySizes: overlays.sizes) {
            stages.append(Stage(name: step.name, bytes: Self.sum(sourceBytes, image, step.cost.bytes(for: step.size, frames: frames))))
            pixelPasses = Self.sum(pixelPasses, step.cost.pixelPasses(for: step.size, frames: frames))
            size = step.size
            image = Self.bitmapBytes(size, frames: frames)
            if Self.bitmapBytes(size, frames: 1) > Self.bitmapBytes(largest, frames: 1) { largest = size }
        }
        let encoder = formats.map { EncoderCost.bytes(for: $0, size: size, frames: frames, searching: maxBytes != nil) }.max() ?? 0
        stages.append(Stage(name: "encode", bytes: Self.sum(sourceBytes, image, encoder)))
        self.stages = stages
        largestSize = largest
    }

    /// What the images `watermark` and `frame` draw cost: their bytes, the peak while they are
    /// decoded, and what stays alive (their bitmaps and what scaling them needs) until the variant is made.
    struct Overlays: Sendable, Hashable {
        var encodedBytes = 0
        var decodeBytes = 0
        var heldBytes = 0
        /// Each image's upright size, from its header: what a step's planned size may depend on.
        var sizes: [String: PixelSize] = [:]
        static let none = Overlays()
    }

    static func bitmapBytes(_ size: PixelSize, frames: Int) -> Int {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        let (bytes, overflowed) = pixels.multipliedReportingOverflow(by: 4 * frames)
        return overflow || overflowed ? .max : bytes
    }

    static func sum(_ parts: Int...) -> Int {
        var total = 0
        for part in parts {
            let (next, overflow) = total.addingReportingOverflow(part)
            if overflow { return .max }
            total = next
        }
        return total
    }
}

/// What WebImage's encoders allocate besides the image they read: their working copies (a
/// WebP or AVIF picture, libaom's frame buffers, a progressive JPEG's coefficients) and the bytes
/// they write.
enum EncoderCost {
    /// Bytes per pixel of one frame, and a fixed part (codec state).
    static func perPixel(_ format: ImageFormat) -> (perPixel: Int, fixed: Int) {
        switch format {
        case .jpeg: (6, 1 << 20)
        case .png: (6, 1 << 20)
        // An alpha plane is compressed losslessly (VP8L's hash chains and backward references).
        case .webp: (40, 4 << 20)
        case .avif: (32, 32 << 20)
        case .gif: (10, 2 << 20)
        default: (16, 4 << 20)
        }
    }

    /// Peak bytes while encoding `frames` frames of `size` as `format`; `searching` keeps the best
    /// result so far beside the next attempt (`max_bytes`).
    static func bytes(for format: ImageFormat, size: PixelSize, frames: Int, searching: Bool) -> Int {
        let (perPixel, fixed) = perPixel(format)
        let pixels = CostPlan.bitmapBytes(size, frames: 1) / 4
        let (scratch, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        // An animation's frames are written one at a time; what they write adds up.
        let (written, overflowed) = pixels.multipliedReportingOverflow(by: 4 * max(1, frames) * (searching ? 2 : 1))
        return overflow || overflowed ? .max : CostPlan.sum(scratch, written, fixed)
    }
}
