import CAVIF
import Foundation

enum AVIFDecoding {
    static func header(_ data: Data) throws -> ImageHeader {
        try withParsedDecoder(data) { decoder in
            header(of: decoder, dataSize: data.count)
        }
    }

    /// What the parsed container says: size, frames, depth, chroma sampling, alpha.
    private static func header(of decoder: UnsafeMutablePointer<avifDecoder>, dataSize: Int) -> ImageHeader {
        let image = decoder.pointee.image.pointee
        let sampling: [PixelSize] = switch image.yuvFormat {
        case AVIF_PIXEL_FORMAT_YUV444: [PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)]
        case AVIF_PIXEL_FORMAT_YUV422: [PixelSize(width: 2, height: 1), PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)]
        case AVIF_PIXEL_FORMAT_YUV420: [PixelSize(width: 2, height: 2), PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)]
        case AVIF_PIXEL_FORMAT_YUV400: [PixelSize(width: 1, height: 1)]
        default: []
        }
        return ImageHeader(format: .avif, pixelSize: PixelSize(width: Int(image.width), height: Int(image.height)),
                           orientation: orientation(of: image), frameCount: Int(decoder.pointee.imageCount),
                           bitDepth: Int(image.depth) > 0 ? Int(image.depth) : 12, componentSampling: sampling,
                           hasAlpha: decoder.pointee.alphaPresent != 0, dataSize: dataSize)
    }

    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try withParsedDecoder(data) { decoder in
            let first = decoder.pointee.image.pointee
            let size = PixelSize(width: Int(first.width), height: Int(first.height))
            try options.checkPixelLimit(width: size.width, height: size.height)
            // No scaled decode in libavif: the whole AV1 picture is made, so a budget refuses here.
            try options.checkDecodeBudget(AVIFCoder().decodingCost(of: header(of: decoder, dataSize: data.count), options: options))
            // The header passed; the AV1 stream may still declare a bigger picture than its
            // `ispe`. dav1d refuses frames over libavif's limit before allocating them, so the
            // limit becomes ours and the codecs are made again with it. Under a budget the plan was
            // made for the `ispe` size, so no frame may be larger.
            let planned = options.maxDecodeBytes == nil ? options.maxPixelCount : min(options.maxPixelCount, size.pixelCount)
            decoder.pointee.imageSizeLimit = UInt32(clamping: min(planned, 16384 * 16384))
            try check(avifDecoderReset(decoder), decoder)
            let count = options.decodeFirstFrameOnly ? 1 : max(1, Int(decoder.pointee.imageCount))
            try options.checkAnimationWork(canvas: size, frameCount: count)
            let target = options.targetSize(for: size, frameCount: count)
            var frames: [ImageFrame] = []
            for _ in 0..<count {
                try check(avifDecoderNextImage(decoder), decoder)
                let image = decoder.pointee.image!
                guard Int(image.pointee.width) == size.width, Int(image.pointee.height) == size.height else {
                    throw ImageCoderError.corrupt(.avif, reason: "frames of different sizes")
                }
                var bitmap = try Bitmap(width: size.width, height: size.height) { buffer in
                    var rgb = avifRGBImage()
                    avifRGBImageSetDefaults(&rgb, image)
                    rgb.format = AVIF_RGB_FORMAT_RGBA
                    rgb.depth = 8
                    rgb.pixels = buffer.baseAddress
                    rgb.rowBytes = UInt32(size.width * 4)
                    try check(avifImageYUVToRGB(image, &rgb), decoder)
                }
                if let target { bitmap = bitmap.resampled(to: target) }
                frames.append(ImageFrame(bitmap: bitmap, duration: count > 1 ? decoder.pointee.imageTiming.duration : 0))
            }
            return Image(frames: frames, loopCount: 0, scale: options.scaleFactor ?? 1, orientation: orientation(of: first),
                         format: .avif, originalData: target == nil && count == Int(decoder.pointee.imageCount) ? data : nil,
                         hasAlpha: decoder.pointee.alphaPresent != 0
            // From the decoder's current image: the reset above replaced the one `first` copied,
            // and freed the ICC bytes its copy still points at.
            ).colorManaged(colorProfile(of: decoder.pointee.image.pointee), options: options)
        }
    }

    /// An ICC `colr` box wins; else the nclx primaries and transfer curve (libavif fills in
    /// BT.709/sRGB when the file has neither).
    private static func colorProfile(of image: avifImage) -> ColorProfile? {
        if image.icc.size > 0, let bytes = image.icc.data { return ColorProfile(iccData: Data(bytes: bytes, count: image.icc.size)) }
        var xy = [Float](repeating: 0, count: 8)
        avifColorPrimariesGetValues(image.colorPrimaries, &xy)
        return ColorProfile.cicp(primaries: xy.map(Double.init), transfer: Int(image.transferCharacteristics))
    }

    /// A decoder over `data`, parsed (sizes and frame count known, nothing decoded), for `body`.
    private static func withParsedDecoder<T>(_ data: Data, _ body: (UnsafeMutablePointer<avifDecoder>) throws -> T) throws -> T {
        if data.isEmpty { throw ImageCoderError.emptyData }
        try CodecLibrary.avif.load(for: .avif)
        guard let decoder = avifDecoderCreate() else { throw ImageCoderError.outOfMemory }
        defer { avifDecoderDestroy(decoder) }
        // One thread: WebImage's decoding queue is the parallelism. Metadata we do not read is skipped.
        decoder.pointee.maxThreads = 1
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        return try data.withUnsafeBytes { raw in
            try check(avifDecoderSetIOMemory(decoder, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count), decoder)
            // Parsing reads sizes and frame count only; the pixel limit is checked on them after.
            try check(avifDecoderParse(decoder), decoder)
            return try body(decoder)
        }
    }

    private static func check(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>) throws {
        guard result != AVIF_RESULT_OK else { return }
        if result == AVIF_RESULT_TRUNCATED_DATA || result == AVIF_RESULT_NO_IMAGES_REMAINING { throw ImageCoderError.truncated(.avif) }
        if result == AVIF_RESULT_OUT_OF_MEMORY { throw ImageCoderError.outOfMemory }
        throw ImageCoderError.corrupt(.avif, reason: AVIFStatus.reason(result, decoder.pointee.diag))
    }

    /// The `irot` / `imir` transforms as an EXIF orientation (what the other coders report; the
    /// pixels stay as stored). HEIF applies the rotation first, then the mirror.
    static func orientation(of image: avifImage) -> ImageOrientation {
        let rotates = image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0
        let mirrors = image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0
        // irot turns anti-clockwise; imir mode 0 exchanges top and bottom, 1 left and right.
        let quarterTurnsClockwise = rotates ? (4 - Int(image.irot.angle) % 4) % 4 : 0
        let mirror: ImageOrientation.Mirror? = mirrors ? (image.imir.mode == 0 ? .topBottom : .leftRight) : nil
        return ImageOrientation(quarterTurnsClockwise: quarterTurnsClockwise, then: mirror)
    }
}

extension ImageOrientation {
    enum Mirror { case leftRight, topBottom }

    /// The EXIF orientation that displays stored pixels after turning them `quarterTurnsClockwise`
    /// and then mirroring them.
    init(quarterTurnsClockwise turns: Int, then mirror: Mirror?) {
        // A top-bottom mirror is a left-right one after a half turn.
        let (turns, flips) = switch mirror {
        case nil: (turns % 4, false)
        case .leftRight: (turns % 4, true)
        case .topBottom: ((turns + 2) % 4, true)
        }
        // EXIF: 1/6/3/8 turn 0/90/180/270 clockwise; 2/5/4/7 are those turns followed by a left-right
        // mirror (a quarter turn then a mirror is a transpose, 5).
        let exif = flips ? [2, 5, 4, 7][turns] : [1, 6, 3, 8][turns]
        self.init(exifValue: exif)
    }
}
