import Foundation

/// Writes an image as GIF: each frame quantized to its own ≤ 256-colour table (the first one
/// global, the rest local), alpha below 128 as a transparent index, delays in centiseconds and the
/// NETSCAPE2.0 loop count.
enum GIFEncoding {
    static func encode(_ image: Image, options: ImageEncodeOptions) throws -> Data {
        let frames = options.framesToEncode(image)
        let size = frames[0].bitmap.size
        // Frames of one image share a size; a stray one is fitted rather than misplaced.
        let quantized = frames.map { frame in
            ColorQuantizer.quantize(frame.bitmap.size == size || size.isEmpty ? frame.bitmap : frame.bitmap.resampled(to: size))
        }
        let animated = frames.count > 1
        // Frames are whole canvases. Where one has transparent pixels the previous frame must be
        // cleared first or it would show through them; otherwise leaving it in place is the norm.
        let disposal: GIFDisposal = quantized.contains { $0.transparentIndex != nil } ? .background : .keep
        let global = quantized[0].palette
        let writer = try GIFWriter(width: size.width, height: size.height, globalColorMap: global)
        // No extension means "play once", so a loop count of 1 is written by leaving it out —
        // the one spelling every decoder agrees on.
        if animated, image.loopCount != 1 { try writer.writeLoopCount(image.loopCount) }
        for (frame, result) in zip(frames, quantized) {
            let control = animated || result.transparentIndex != nil
                ? GIFGraphicsControl(
                    disposal: disposal, delay: centiseconds(frame.duration), transparentIndex: result.transparentIndex)
                : nil
            try writer.write(GIFWriter.Frame(
                width: size.width, height: size.height, indices: result.indices,
                colorMap: result.palette == global ? nil : result.palette, control: control))
        }
        return try writer.finish()
    }

    static func centiseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(65535, (seconds * 100).rounded()))
    }
}
