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
        let scan = options.decodeFirstFrameOnly ? nil : try GIFScan(bytes: bytes, maxPixelCount: limit)
        let reader = try GIFReader(bytes: bytes)
        try GIFScan.checkScreen(reader.screenSize, maxPixelCount: limit)
        guard let first = try reader.nextFrame() else {
            throw ImageCoderError.corrupt(.gif, reason: "no image in the file")
        }
        let canvasSize = GIFScan.canvasSize(screen: reader.screenSize, firstFrame: first)
        try GIFScan.checkScreen(canvasSize, maxPixelCount: limit)
        try options.checkAnimationWork(canvas: canvasSize, frameCount: scan?.frameCount ?? 1)
        // Thumbnail, scale-down and the animation byte budget all come out of this one size.
        let target = options.targetSize(for: canvasSize, frameCount: scan?.frameCount ?? 1)

        var canvas = GIFCanvas(size: canvasSize)
        var frames = AnimationFrames(target: target)
        var usesTransparency = false
        var next: GIFFrameHeader? = first
        while let frame = next {
            try GIFScan.checkFrame(frame, maxPixelCount: limit)
            let snapshot = frame.control.disposal == .previous ? canvas.pixels : nil
            let usedIndex = try canvas.draw(frame, from: reader)
            usesTransparency = usesTransparency || usedIndex
            frames.append(canvas: canvas.pixels, size: canvasSize, duration: frame.control.duration)
            if options.decodeFirstFrameOnly { break }
            switch frame.control.disposal {
            case .keep: break
            case .background: canvas.clear(frame)
            case .previous: if let snapshot { canvas.restore(snapshot) }
            }
            next = try reader.nextFrame()
        }
        return Image(
            frames: frames.result, loopCount: scan?.loopCount ?? reader.loopCount ?? 1, scale: options.scaleFactor ?? 1,
            format: .gif, originalData: target == nil ? originalData : nil,
            // Pixels drawn with the transparent index say so (encoders such as Pillow declare an
            // index on every frame whether used or not); otherwise only pixels no frame covered,
            // or that a disposal cleared, can be transparent, and Image finds those by scanning.
            hasAlpha: usesTransparency ? true : nil)
    }
}
