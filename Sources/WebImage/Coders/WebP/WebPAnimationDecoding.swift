import CWebP
import Foundation

/// Animated WebP through libwebpdemux's `WebPAnimDecoder`, which composites each frame onto the
/// canvas (offsets, blending, disposal) so every ``ImageFrame`` is a full picture.
enum WebPAnimationDecoding {
    /// SDWebImage's rule (as browsers do): frames under 11 ms play at 100 ms.
    static func clampedDuration(milliseconds: Int) -> Double {
        AnimationFrames.displayDuration(seconds: Double(milliseconds) / 1000)
    }

    struct Result {
        var frames: [ImageFrame]
        var loopCount: Int
        var orientation: ImageOrientation
        var scaled: Bool
    }

    /// Decodes the frames (only the first with `decodeFirstFrameOnly`), each resampled to the
    /// target size when the options ask for one.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures, options: ImageDecodeOptions
    ) throws -> Result {
        let canvas = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.checkPixelLimit(width: canvas.width, height: canvas.height)
        guard let base = bytes.baseAddress else { throw ImageCoderError.emptyData }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw ImageCoderError.corrupt(.webp, reason: "libwebpdemux ABI mismatch")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        // The decoder allocates its canvas here, but the pixel limit above has bounded it.
        guard let decoder = WebPAnimDecoderNew(&data, &decoderOptions) else {
            throw WebPMetadata.demuxFailure(bytes)
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw ImageCoderError.corrupt(.webp, reason: "unreadable animation header")
        }
        let infoCanvas = PixelSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        let frameCount = max(1, Int(info.frame_count))
        let wanted = options.decodeFirstFrameOnly ? 1 : frameCount
        // libwebp composites every frame on the full canvas, as the GIF and APNG decoders do.
        try options.checkAnimationWork(canvas: infoCanvas, frameCount: wanted)
        let target = options.targetSize(for: infoCanvas, frameCount: wanted)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(wanted)
        var previousTimestamp: Int32 = 0
        while frames.count < wanted, WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvasPixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvasPixels, &timestamp) != 0, let canvasPixels else {
                throw ImageCoderError.corrupt(.webp, reason: "frame \(frames.count + 1) failed to decode")
            }
            // The decoder reuses its canvas for the next frame, so each frame is copied out.
            var bitmap = Bitmap(width: infoCanvas.width, height: infoCanvas.height) { buffer in
                buffer.baseAddress?.update(from: canvasPixels, count: buffer.count)
            }
            if let target { bitmap = bitmap.resampled(to: target) }
            // Timestamps are when each frame ends, so durations are their differences.
            let duration = clampedDuration(milliseconds: Int(timestamp) - Int(previousTimestamp))
            previousTimestamp = timestamp
            frames.append(ImageFrame(bitmap: bitmap, duration: duration))
        }
        guard !frames.isEmpty else { throw ImageCoderError.corrupt(.webp, reason: "animation has no frames") }
        // One frame of an animation is shown as a still, and stills have no duration.
        if options.decodeFirstFrameOnly { frames = [ImageFrame(bitmap: frames[0].bitmap)] }
        let orientation = WebPAnimDecoderGetDemuxer(decoder).map { WebPMetadata.orientation(from: $0) } ?? .up
        return Result(frames: frames, loopCount: Int(info.loop_count), orientation: orientation, scaled: target != nil)
    }
}
