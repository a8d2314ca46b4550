import CWebP
import Foundation

/// Still (VP8, VP8L, VP8X + ALPH) decoding straight into the bitmap's own storage: libwebp writes
/// RGBA rows into the buffer the ``Bitmap`` keeps, so the pixels are never copied.
enum WebPStillDecoding {
    static func decode(
        _ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures, options: ImageDecodeOptions
    ) throws -> (bitmap: Bitmap, scaled: Bool) {
        let size = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.checkPixelLimit(width: size.width, height: size.height)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImageCoderError.corrupt(.webp, reason: "libwebp decoder ABI mismatch")
        }
        // libwebp's scaler filters while it decodes, so the full-size bitmap never exists.
        let target = options.targetSize(for: size)
        let output = target ?? size
        if let target {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        guard let base = bytes.baseAddress else { throw ImageCoderError.emptyData }
        let bitmap = try Bitmap(width: output.width, height: output.height) { pixels in
            try decode(
                base.assumingMemoryBound(to: UInt8.self), bytes.count, config: &config, into: pixels,
                bytesPerRow: output.width * Bitmap.bytesPerPixel)
        }
        return (bitmap, target != nil)
    }

    /// Runs `WebPDecode` with `config.output` pointing at `pixels` (straight RGBA).
    static func decode(
        _ data: UnsafePointer<UInt8>, _ count: Int, config: inout WebPDecoderConfig,
        into pixels: UnsafeMutableBufferPointer<UInt8>, bytesPerRow: Int
    ) throws {
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = pixels.baseAddress
        config.output.u.RGBA.stride = Int32(bytesPerRow)
        config.output.u.RGBA.size = pixels.count
        let status = WebPDecode(data, count, &config)
        // A no-op for external memory, but keeps the pairing libwebp documents.
        WebPFreeDecBuffer(&config.output)
        if let error = WebPStatus.error(status) { throw error }
    }
}
