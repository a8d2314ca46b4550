import CWebP

/// An animated WebP's frames as libwebpdemux's `WebPAnimDecoder` composites them (offsets,
/// blending, disposal) on its own canvas, which it reuses: each step is copied out.
final class WebPFrameSequence: AnimationFrameSequence {
    let canvasSize: PixelSize
    let frameCount: Int
    let loopCount: Int
    private let decoder: OpaquePointer
    private var previousTimestamp: Int32 = 0
    private var produced = 0
    /// Keeps the bytes the decoder reads alive when the sequence outlives its caller's buffer.
    private let owner: AnyObject?

    /// The decoder allocates its canvas here: the canvas is checked against `maxPixelCount` first.
    init(bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures, maxPixelCount: Int, owner: AnyObject? = nil) throws {
        try ImageDecodeOptions(maxPixelCount: maxPixelCount).checkPixelLimit(width: Int(features.width), height: Int(features.height))
        guard let base = bytes.baseAddress else { throw ImageCoderError.emptyData }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageCoderError.corrupt(.webp, reason: "libwebpdemux ABI mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&data, &options) else { throw WebPMetadata.demuxFailure(bytes) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            WebPAnimDecoderDelete(decoder)
            throw ImageCoderError.corrupt(.webp, reason: "unreadable animation header")
        }
        self.decoder = decoder
        self.owner = owner
        canvasSize = PixelSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        frameCount = max(1, Int(info.frame_count))
        loopCount = Int(info.loop_count)
    }

    deinit { WebPAnimDecoderDelete(decoder) }

    /// The EXIF orientation from the container's chunks.
    var orientation: ImageOrientation {
        WebPAnimDecoderGetDemuxer(decoder).map { WebPMetadata.orientation(from: $0) } ?? .up
    }

    func next() throws -> (canvas: [UInt8], duration: Double)? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var pixels: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, let pixels else {
            throw ImageCoderError.corrupt(.webp, reason: "frame \(produced + 1) failed to decode")
        }
        produced += 1
        let canvas = [UInt8](UnsafeBufferPointer(start: pixels, count: canvasSize.pixelCount * Bitmap.bytesPerPixel))
        // Timestamps are when each frame ends, so durations are their differences.
        let duration = WebPAnimationDecoding.clampedDuration(milliseconds: Int(timestamp) - Int(previousTimestamp))
        previousTimestamp = timestamp
        return (canvas, duration)
    }
}
