import Foundation

/// Animated PNG: chunks parsed in Swift (``APNGContainer``), each frame decoded by libpng from a
/// standalone stream (``APNGFrameStream``), then composited with the frame's blend and dispose
/// operations (``APNGCanvas``). ``PNGCoder`` asks here first and decodes a still image when the
/// answer is `nil`; with `decodeFirstFrameOnly` it does not ask (the default image is the poster).
enum APNGDecoding {
    /// Every frame of an animated PNG, or `nil` when `data` is not one (no valid `acTL`).
    static func decodeIfAnimated(_ data: Data, options: ImageDecodeOptions) throws -> Image? {
        guard !data.isEmpty else { return nil }
        return try data.withUnsafeBytes { bytes in
            guard let container = try APNGContainer.parse(bytes, checking: options) else { return nil }
            return try decode(container, bytes: bytes, originalData: data, options: options)
        }
    }

    /// Frame count, loop count and canvas from the chunks alone; `nil` when not animated or when
    /// the animation is malformed (the caller then describes the still image).
    static func animationInfo(_ data: Data) -> AnimationInfo? {
        guard !data.isEmpty,
              let container = try? data.withUnsafeBytes({ try APNGContainer.parse($0) })
        else { return nil }
        return AnimationInfo(frameCount: container.frames.count, loopCount: container.loopCount, canvasSize: container.canvasSize)
    }

    private static func decode(
        _ container: APNGContainer, bytes: UnsafeRawBufferPointer, originalData: Data, options: ImageDecodeOptions
    ) throws -> Image {
        let canvasSize = container.canvasSize  // within the pixel limit: the parser checked
        try options.checkAnimationWork(canvas: canvasSize, frameCount: container.frames.count)
        if options.maxDecodeBytes != nil {
            // The same header a caller plans with (the colour chunks decide the conversion copy).
            try options.checkDecodeBudget(PNGCoder().decodingCost(of: PNGCoder().header(of: originalData), options: options))
        }
        // Thumbnail, scale-down and the animation byte budget all come out of this one size.
        let target = options.targetSize(for: canvasSize, frameCount: container.frames.count)

        let sequence = APNGFrameSequence(container: container, bytes: bytes, maxPixelCount: options.maxPixelCount)
        var frames = AnimationFrames(target: target)
        while let (pixels, duration) = try sequence.next() {
            frames.append(canvas: pixels, size: canvasSize, duration: duration)
        }
        return Image(
            frames: frames.result, loopCount: container.loopCount, scale: options.scaleFactor ?? 1, format: .png,
            originalData: target == nil ? originalData : nil,
            // An alpha channel or tRNS says so; otherwise only pixels no frame covered (or that a
            // disposal cleared) can be transparent, and Image finds those by scanning.
            hasAlpha: sequence.declaresAlpha ? true : nil
        ).colorManaged(sequence.colorProfile, options: options)
    }

    /// One frame's own pixels, through libpng.
    static func decodePixels(
        of frame: APNGFrame, number: Int, in container: APNGContainer, bytes: UnsafeRawBufferPointer,
        maxPixelCount: Int
    ) throws -> (Bitmap, hasAlpha: Bool, colorProfile: ColorProfile?) {
        let decoder = PNGPushDecoder(maxPixelCount: maxPixelCount)
        let bitmap: Bitmap
        do {
            bitmap = try decoder.decodeAll(APNGFrameStream.png(for: frame, in: container, bytes: bytes))
        } catch ImageCoderError.corrupt(.png, let reason) {
            throw ImageCoderError.corrupt(.png, reason: "APNG frame \(number): \(reason)")
        } catch ImageCoderError.truncated(.png) {
            throw ImageCoderError.corrupt(.png, reason: "APNG frame \(number): image data ends early")
        }
        guard bitmap.size == PixelSize(width: frame.width, height: frame.height) else {
            throw ImageCoderError.corrupt(.png, reason: "APNG frame \(number): image data ends early")
        }
        return (bitmap, decoder.hasAlpha, decoder.colorProfile)
    }
}
