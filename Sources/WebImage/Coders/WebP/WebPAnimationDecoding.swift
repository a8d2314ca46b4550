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
        let sequence = try WebPFrameSequence(bytes: bytes, features: features, maxPixelCount: options.maxPixelCount)
        let wanted = options.decodeFirstFrameOnly ? 1 : sequence.frameCount
        // libwebp composites every frame on the full canvas, as the GIF and APNG decoders do.
        try options.checkAnimationWork(canvas: sequence.canvasSize, frameCount: wanted)
        var collected = AnimationFrames(target: options.targetSize(for: sequence.canvasSize, frameCount: wanted))
        while collected.frames.count < wanted, let (pixels, duration) = try sequence.next() {
            collected.append(canvas: pixels, size: sequence.canvasSize, duration: duration)
        }
        guard !collected.frames.isEmpty else { throw ImageCoderError.corrupt(.webp, reason: "animation has no frames") }
        // One frame of an animation is shown as a still (no duration): `result` does that.
        return Result(frames: collected.result, loopCount: sequence.loopCount, orientation: sequence.orientation, scaled: collected.target != nil)
    }
}
