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
        // Thumbnail, scale-down and the animation byte budget all come out of this one size.
        let target = options.targetSize(for: canvasSize, frameCount: container.frames.count)

        var canvas = APNGCanvas(size: canvasSize)
        var frames = AnimationFrames(target: target)
        var declaresAlpha = false
        for (index, frame) in container.frames.enumerated() {
            let (pixels, hasAlpha) = try decodePixels(of: frame, number: index + 1, in: container, bytes: bytes, options: options)
            declaresAlpha = declaresAlpha || hasAlpha
            let snapshot = frame.dispose == .previous ? canvas.pixels : nil
            canvas.draw(pixels, x: frame.x, y: frame.y, blend: frame.blend)
            frames.append(canvas: canvas.pixels, size: canvasSize, duration: frame.duration)
            switch frame.dispose {
            case .none: break
            case .background: canvas.clear(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
            // On the first frame this restores the empty canvas, which is what the spec asks
            // ("treat as background") since nothing else was drawn yet.
            case .previous: if let snapshot { canvas.restore(snapshot) }
            }
        }
        return Image(
            frames: frames.result, loopCount: container.loopCount, scale: options.scaleFactor ?? 1, format: .png,
            originalData: target == nil ? originalData : nil,
            // An alpha channel or tRNS says so; otherwise only pixels no frame covered (or that a
            // disposal cleared) can be transparent, and Image finds those by scanning.
            hasAlpha: declaresAlpha ? true : nil)
    }

    /// One frame's own pixels, through libpng.
    private static func decodePixels(
        of frame: APNGFrame, number: Int, in container: APNGContainer, bytes: UnsafeRawBufferPointer,
        options: ImageDecodeOptions
    ) throws -> (Bitmap, hasAlpha: Bool) {
        let decoder = PNGPushDecoder(maxPixelCount: options.maxPixelCount)
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
        return (bitmap, decoder.hasAlpha)
    }
}
