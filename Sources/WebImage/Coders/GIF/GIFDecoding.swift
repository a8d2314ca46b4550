import Foundation

/// Decodes a GIF into composited frames (what a browser shows at each step), SDWebImage's way:
/// per-frame delays with the 0.1 s rule, NETSCAPE loop count (absent = plays once), the background
/// colour ignored in favour of transparency.
enum GIFDecoding {
    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        if data.isEmpty { throw ImageCoderError.emptyData }
        return try data.withUnsafeBytes { bytes in
            try decode(bytes, originalData: data, options: options)
        }
    }

    static func animationInfo(_ data: Data) throws -> AnimationInfo {
        if data.isEmpty { throw ImageCoderError.emptyData }
        let scan = try data.withUnsafeBytes { try GIFScan(bytes: $0, maxPixelCount: .max) }
        return AnimationInfo(frameCount: scan.frameCount, loopCount: scan.loopCount, canvasSize: scan.canvasSize)
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, originalData: Data, options: ImageDecodeOptions) throws -> Image {
        let limit = options.maxPixelCount
        // The whole structure first: the frame count sizes scale-down and the animation budget,
        // and a cut-off file fails before any pixel memory exists. One frame needs none of that.
        // A budget needs the canvas before the sequence allocates it, so it scans even for one frame.
        let scan = options.decodeFirstFrameOnly && options.maxDecodeBytes == nil ? nil : try GIFScan(bytes: bytes, maxPixelCount: limit)
        if let scan, options.maxDecodeBytes != nil {
            let header = ImageHeader(format: .gif, pixelSize: scan.canvasSize, frameCount: scan.frameCount, dataSize: bytes.count)
            try options.checkDecodeBudget(GIFCoder().decodingCost(of: header, options: options))
        }
        let sequence = try GIFFrameSequence(bytes: bytes, maxPixelCount: limit)
        let canvasSize = sequence.canvasSize
        let frameCount = options.decodeFirstFrameOnly ? 1 : scan?.frameCount ?? 1
        try options.checkAnimationWork(canvas: canvasSize, frameCount: frameCount)
        // Thumbnail, scale-down and the animation byte budget all come out of this one size.
        let target = options.targetSize(for: canvasSize, frameCount: frameCount)
        var frames = AnimationFrames(target: target)
        while let (pixels, duration) = try sequence.next() {
            frames.append(canvas: pixels, size: canvasSize, duration: duration)
            if options.decodeFirstFrameOnly { break }
        }
        return Image(
            frames: frames.result, loopCount: scan?.loopCount ?? sequence.loopCount ?? 1, scale: options.scaleFactor ?? 1,
            format: .gif, originalData: target == nil ? originalData : nil,
            // Pixels drawn with the transparent index say so (encoders such as Pillow declare an
            // index on every frame whether used or not); otherwise only pixels no frame covered,
            // or that a disposal cleared, can be transparent, and Image finds those by scanning.
            hasAlpha: sequence.usedTransparency ? true : nil)
    }
}
