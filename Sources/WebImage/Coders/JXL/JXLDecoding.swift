import CJXL
import Foundation

/// What the basic info and a walk over the frame headers say, without decoding a pixel.
struct JXLScan {
    var size: PixelSize
    var orientation: ImageOrientation
    /// One entry per displayed frame (libjxl coalesces zero-duration layers); a still has one.
    var durations: [Double]
    var loopCount: Int
    var hasAlpha: Bool
}

enum JXLDecoding {
    /// Basic info and every frame header. Frame data is skipped unread, so bytes cut inside the
    /// last frame still scan; only a decode finds them short.
    static func scan(_ data: Data) throws -> JXLScan {
        var scan: JXLScan?
        var ticks = 0.0
        try process(data, events: [JXL_DEC_BASIC_INFO, JXL_DEC_FRAME]) { decoder, status in
            switch status {
            case JXL_DEC_BASIC_INFO:
                let info = try basicInfo(decoder)
                ticks = secondsPerTick(info)
                scan = JXLScan(size: PixelSize(width: Int(info.xsize), height: Int(info.ysize)),
                               orientation: ImageOrientation(exifValue: Int(info.orientation.rawValue)),
                               durations: [], loopCount: info.have_animation != 0 ? Int(info.animation.num_loops) : 0,
                               hasAlpha: info.alpha_bits > 0)
            case JXL_DEC_FRAME:
                scan?.durations.append(try frameDuration(decoder, secondsPerTick: ticks))
            default: break
            }
            return true
        }
        guard var scan, !scan.durations.isEmpty else { throw ImageCoderError.corrupt(.jpegXL, reason: "no frames") }
        if scan.durations.count == 1 { scan.durations = [0] }
        return scan
    }

    static func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        // Animations are walked first: the frame count decides the budget and the target size
        // before a frame is decoded (JPEG XL declares no frame count).
        let scan = try scan(data)
        try options.checkPixelLimit(width: scan.size.width, height: scan.size.height)
        let count = options.decodeFirstFrameOnly ? 1 : scan.durations.count
        try options.checkAnimationWork(canvas: scan.size, frameCount: count)
        // libjxl 0.7 cannot decode smaller than the image: a budget refuses here, before libjxl allocates.
        try options.checkDecodeBudget(JXLCoder().decodingCost(of: scan.imageHeader(dataSize: data.count), options: options))
        var frames = AnimationFrames(target: options.targetSize(for: scan.size, frameCount: count))
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let byteCount = scan.size.pixelCount * Bitmap.bytesPerPixel
        let canvas = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: byteCount)
        defer { canvas.deallocate() }
        var isGray = false
        var profile: ColorProfile?
        try process(data, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FULL_IMAGE]) { decoder, status in
            switch status {
            case JXL_DEC_BASIC_INFO:
                isGray = try basicInfo(decoder).num_color_channels == 1
            case JXL_DEC_COLOR_ENCODING:
                // Only a choice for XYB-coded images (lossy cjxl's default): ask for sRGB pixels.
                var srgb = JxlColorEncoding()
                JxlColorEncodingSetToSRGB(&srgb, isGray ? JXL_TRUE : JXL_FALSE)
                _ = JxlDecoderSetPreferredColorProfile(decoder, &srgb)
                profile = dataProfile(decoder)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var needed = 0
                guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == byteCount,
                      JxlDecoderSetImageOutBuffer(decoder, &format, canvas.baseAddress, byteCount) == JXL_DEC_SUCCESS
                else { throw ImageCoderError.corrupt(.jpegXL, reason: "frames of different sizes") }
            case JXL_DEC_FULL_IMAGE:
                let index = frames.frames.count
                guard index < scan.durations.count else { throw ImageCoderError.corrupt(.jpegXL, reason: "more frames than headers") }
                frames.append(canvas: Array(canvas), size: scan.size, duration: scan.durations[index])
                return frames.frames.count < count
            default: break
            }
            return true
        }
        guard frames.frames.count == count else { throw ImageCoderError.truncated(.jpegXL) }
        let whole = frames.target == nil && count == scan.durations.count
        return Image(frames: frames.result, loopCount: scan.loopCount, scale: options.scaleFactor ?? 1,
                     orientation: scan.orientation, format: .jpegXL, originalData: whole ? data : nil, hasAlpha: scan.hasAlpha
        ).colorManaged(profile, options: options)
    }

    /// Runs libjxl over `data`, handing each subscribed event (and output-buffer requests) to
    /// `handle` until it returns false or the image ends. The input is never closed, so libjxl
    /// tells a cut-off file (needs more input) from a corrupt one (error).
    private static func process(
        _ data: Data, events: [JxlDecoderStatus], _ handle: (OpaquePointer, JxlDecoderStatus) throws -> Bool
    ) throws {
        if data.isEmpty { throw ImageCoderError.emptyData }
        try CodecLibrary.jxl.load(for: .jpegXL)
        guard let decoder = JxlDecoderCreate(nil) else { throw ImageCoderError.outOfMemory }
        defer { JxlDecoderDestroy(decoder) }
        let mask = events.reduce(Int32(0)) { $0 | Int32($1.rawValue) }
        // Pixels as stored with the orientation reported, as the other coders do; straight alpha.
        guard JxlDecoderSubscribeEvents(decoder, mask) == JXL_DEC_SUCCESS,
              JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
        else { throw ImageCoderError.outOfMemory }
        try data.withUnsafeBytes { raw in
            guard JxlDecoderSetInput(decoder, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count) == JXL_DEC_SUCCESS
            else { throw ImageCoderError.corrupt(.jpegXL, reason: "input refused") }
            while true {
                let status = JxlDecoderProcessInput(decoder)
                switch status {
                case JXL_DEC_SUCCESS: return
                case JXL_DEC_NEED_MORE_INPUT: throw ImageCoderError.truncated(.jpegXL)
                case JXL_DEC_ERROR: throw ImageCoderError.corrupt(.jpegXL, reason: "libjxl could not decode the data")
                default: if try !handle(decoder, status) { return }
                }
            }
        }
    }

    /// The profile of the pixels libjxl will output (sRGB for XYB images, as asked; the
    /// file's own for the others).
    private static func dataProfile(_ decoder: OpaquePointer) -> ColorProfile? {
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS, size > 0 else { return nil }
        var bytes = Data(count: size)
        let status = bytes.withUnsafeMutableBytes {
            JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), size)
        }
        return status == JXL_DEC_SUCCESS ? ColorProfile(iccData: bytes) : nil
    }

    private static func basicInfo(_ decoder: OpaquePointer) throws -> JxlBasicInfo {
        var info = JxlBasicInfo()
        guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS, info.xsize > 0, info.ysize > 0 else {
            throw ImageCoderError.corrupt(.jpegXL, reason: "no image size")
        }
        return info
    }

    private static func secondsPerTick(_ info: JxlBasicInfo) -> Double {
        guard info.have_animation != 0, info.animation.tps_numerator > 0 else { return 0 }
        return Double(info.animation.tps_denominator) / Double(info.animation.tps_numerator)
    }

    private static func frameDuration(_ decoder: OpaquePointer, secondsPerTick: Double) throws -> Double {
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else {
            throw ImageCoderError.corrupt(.jpegXL, reason: "unreadable frame header")
        }
        return Double(header.duration) * secondsPerTick
    }
}
