import CWebP
import Foundation

/// Still and animated WebP encoding with libwebp / libwebpmux.
enum WebPEncoding {
    /// Encoder settings from ``ImageEncodeOptions``: lossy at `quality` × 100, or lossless
    /// keeping the colour under fully transparent pixels so decode → encode → decode is exact.
    static func config(for options: ImageEncodeOptions) throws -> WebPConfig {
        var config = WebPConfig()
        let quality = Float(options.quality * 100)
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality) != 0 else {
            throw ImageCoderError.encodingFailed(.webp, reason: "libwebp encoder ABI mismatch")
        }
        if options.lossless {
            // Level 6 is cwebp's default lossless effort.
            guard WebPConfigLosslessPreset(&config, 6) != 0 else {
                throw ImageCoderError.encodingFailed(.webp, reason: "invalid lossless preset")
            }
            config.exact = 1
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw ImageCoderError.encodingFailed(.webp, reason: "invalid encoder configuration")
        }
        return config
    }

    /// Fills `picture` from `bitmap`. ARGB for lossless and animation (the animation encoder
    /// works in ARGB), YUV for lossy stills; alpha is skipped when the image has none.
    static func importPixels(_ bitmap: Bitmap, hasAlpha: Bool, into picture: inout WebPPicture, useARGB: Bool) throws {
        guard WebPPictureInit(&picture) != 0 else {
            throw ImageCoderError.encodingFailed(.webp, reason: "libwebp encoder ABI mismatch")
        }
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        picture.use_argb = useARGB ? 1 : 0
        let ok = bitmap.pixels.withUnsafeBufferPointer { pixels in
            hasAlpha
                ? WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(bitmap.bytesPerRow))
                : WebPPictureImportRGBX(&picture, pixels.baseAddress, Int32(bitmap.bytesPerRow))
        }
        guard ok != 0 else {
            let reason = picture.error_code.readableName
            WebPPictureFree(&picture)
            throw ImageCoderError.encodingFailed(.webp, reason: reason)
        }
    }

    static func encodeStill(_ bitmap: Bitmap, hasAlpha: Bool, options: ImageEncodeOptions) throws -> Data {
        try checkDimensions(bitmap.size)
        var config = try config(for: options)
        var picture = WebPPicture()
        try importPixels(bitmap, hasAlpha: hasAlpha, into: &picture, useARGB: options.lossless)
        defer { WebPPictureFree(&picture) }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let memory = writer.mem else {
            throw ImageCoderError.encodingFailed(.webp, reason: picture.error_code.readableName)
        }
        return Data(bytes: memory, count: writer.size)
    }

    static func encodeAnimation(
        _ frames: [ImageFrame], hasAlpha: Bool, loopCount: Int, options: ImageEncodeOptions
    ) throws -> Data {
        let canvas = frames[0].bitmap.size
        try checkDimensions(canvas)
        guard frames.allSatisfy({ $0.bitmap.size == canvas }) else {
            throw ImageCoderError.encodingFailed(.webp, reason: "animation frames differ in size")
        }
        var config = try config(for: options)
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw ImageCoderError.encodingFailed(.webp, reason: "libwebpmux ABI mismatch")
        }
        encoderOptions.anim_params.loop_count = Int32(clamping: max(0, min(65535, loopCount)))
        guard let encoder = WebPAnimEncoderNew(Int32(canvas.width), Int32(canvas.height), &encoderOptions) else {
            throw ImageCoderError.outOfMemory
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var timestamp = 0
        for frame in frames {
            var picture = WebPPicture()
            try importPixels(frame.bitmap, hasAlpha: hasAlpha, into: &picture, useARGB: true)
            defer { WebPPictureFree(&picture) }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0 else {
                throw ImageCoderError.encodingFailed(.webp, reason: animationError(encoder))
            }
            timestamp += durationMilliseconds(frame.duration)
        }
        // A final NULL frame tells the encoder when the last frame ends.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
            throw ImageCoderError.encodingFailed(.webp, reason: animationError(encoder))
        }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
            throw ImageCoderError.encodingFailed(.webp, reason: animationError(encoder))
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// Milliseconds for a frame; a duration the decoder would clamp (under 11 ms, or none) is
    /// written as the 100 ms it will play at, so decoding gives back what was encoded.
    static func durationMilliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds >= 0.011 else { return 100 }
        return Int(min(seconds, 86_400) * 1000 + 0.5)
    }

    private static func animationError(_ encoder: OpaquePointer) -> String {
        guard let message = WebPAnimEncoderGetError(encoder) else { return "animation encoder failed" }
        let text = String(cString: message)
        return text.isEmpty ? "animation encoder failed" : text
    }

    /// WebP stores each side in 14 bits.
    private static func checkDimensions(_ size: PixelSize) throws {
        guard !size.isEmpty, size.width <= Int(WEBP_MAX_DIMENSION), size.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImageCoderError.encodingFailed(
                .webp, reason: "\(size) is outside WebP's 1...\(WEBP_MAX_DIMENSION) pixels per side")
        }
    }
}

extension WebPEncoding {
    /// `data` with an ICCP chunk: libwebpmux rewrites the container as VP8X with the chunk first.
    static func embedding(icc: Data, in data: Data) throws -> Data {
        try data.withUnsafeBytes { file in
            try icc.withUnsafeBytes { profile in
                var input = WebPData(bytes: file.baseAddress!.assumingMemoryBound(to: UInt8.self), size: file.count)
                guard let mux = WebPMuxCreate(&input, 0) else { throw ImageCoderError.encodingFailed(.webp, reason: "cannot re-open the encoded file") }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: profile.baseAddress!.assumingMemoryBound(to: UInt8.self), size: profile.count)
                var output = WebPData()
                defer { WebPDataClear(&output) }
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK, WebPMuxAssemble(mux, &output) == WEBP_MUX_OK else {
                    throw ImageCoderError.encodingFailed(.webp, reason: "cannot add the ICC profile")
                }
                return Data(bytes: output.bytes, count: output.size)
            }
        }
    }
}
