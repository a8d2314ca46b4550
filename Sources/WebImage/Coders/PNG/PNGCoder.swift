import CWebImageShims
import Foundation

/// PNG through libpng: every colour type and bit depth (16-bit reduced to 8 by its high byte),
/// palette with tRNS, Adam7 interlace, APNG animation, incremental decoding, and encoding.
public struct PNGCoder: ProgressiveImageCoder, AnimatedImageCoder {
    /// zlib level for encoding (0...9); 6 is zlib's balance of size and speed. At levels 1–6 a
    /// photograph (Paeth's prediction missing most pixels) is written with Paeth rows and run-length
    /// matching instead: as small as level 6's search on photographs, for much less CPU.
    public var compressionLevel: Int

    public init(compressionLevel: Int = 6) {
        self.compressionLevel = compressionLevel
    }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .png }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        if data.isEmpty { throw ImageCoderError.emptyData }
        if !options.decodeFirstFrameOnly, let animation = try APNGDecoding.decodeIfAnimated(data, options: options) {
            return animation
        }
        let decoder = PNGPushDecoder(maxPixelCount: options.maxPixelCount)
        var bitmap = try decoder.decodeAll(data) { decoder in
            try options.checkDecodeBudget(decodingCost(of: decoder.header(frameCount: 1, dataSize: data.count), options: options))
        }
        let target = options.targetSize(for: bitmap.size)
        if let target { bitmap = bitmap.resampled(to: target) }
        return Image(
            bitmap: bitmap, scale: options.scaleFactor ?? 1, format: .png,
            originalData: target == nil ? data : nil, hasAlpha: decoder.hasAlpha
        ).colorManaged(decoder.colorProfile, options: options)
    }

    public func animationInfo(of data: Data) throws -> AnimationInfo {
        if let info = APNGDecoding.animationInfo(data) { return info }
        let decoder = PNGPushDecoder(maxPixelCount: .max)
        try decoder.feedUntilHeader(data)
        return AnimationInfo(frameCount: 1, loopCount: 0, canvasSize: decoder.size)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    /// Writes the first frame (APNG encoding is not built); RGB when the image has no alpha.
    public func encode(_ image: Image, as format: ImageFormat = .png, options: ImageEncodeOptions = .default) throws -> Data {
        guard format == .png else { throw ImageCoderError.encodingFailed(format, reason: "PNGCoder writes PNG only") }
        let bitmap = options.framesToEncode(image)[0].bitmap
        return try PNGEncoding.encode(bitmap, hasAlpha: image.hasAlpha, compressionLevel: compressionLevel,
                                      icc: options.profileToEmbed(for: image))
    }

    public func canIncrementallyDecode(_ data: Data) -> Bool { canDecode(data) }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        PNGIncrementalDecoder(options: options)
    }
}

enum PNGEncoding {
    static func encode(_ bitmap: Bitmap, hasAlpha: Bool, compressionLevel: Int, icc: Data? = nil) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bitmap.pixels.withUnsafeBufferPointer { pixels in
            (icc ?? Data()).withUnsafeBytes { profile in
                wi_png_encode_rgba(
                    pixels.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                    hasAlpha ? 1 : 0, Int32(compressionLevel), profile.baseAddress?.assumingMemoryBound(to: UInt8.self), profile.count,
                    &out, &size, &message, message.count)
            }
        }
        guard status == 0, let out else {
            throw ImageCoderError.encodingFailed(.png, reason: String(cBuffer: message))
        }
        defer { wi_free(out) }
        return Data(bytes: out, count: size)
    }
}

/// libpng's push reader, fed only the bytes it has not seen. Not `Sendable`: one owner at a time.
final class PNGPushDecoder {
    private let decoder: OpaquePointer?
    private let maxPixelCount: Int
    private let allowsWholeBuffer: Bool
    private var fed = 0
    private(set) var isComplete = false
    /// Whether ``decodeAll(_:checkHeader:)`` took the whole-buffer path (the specs compare both).
    private(set) var decodedWholeBuffer = false

    /// `allowsWholeBuffer: false` keeps every row in libpng.
    init(maxPixelCount: Int, allowsWholeBuffer: Bool = true) {
        self.maxPixelCount = maxPixelCount
        self.allowsWholeBuffer = allowsWholeBuffer
        decoder = wi_png_decoder_create(UInt64(max(0, maxPixelCount)))
    }

    deinit { wi_png_decoder_destroy(decoder) }

    var decoderHandle: OpaquePointer? { decoder }

    var headerReady: Bool { decoder.map { wi_png_header_ready($0) != 0 } ?? false }
    var size: PixelSize {
        guard let decoder else { return .zero }
        return PixelSize(width: Int(wi_png_width(decoder)), height: Int(wi_png_height(decoder)))
    }
    var hasAlpha: Bool { decoder.map { wi_png_has_alpha($0) != 0 } ?? false }

    /// What the pixels' values mean, from the chunks before them: iCCP wins, an sRGB chunk means
    /// sRGB, else cHRM/gAMA make a profile (nil when they describe sRGB).
    var colorProfile: ColorProfile? {
        guard let decoder else { return nil }
        var length = 0
        if let icc = wi_png_icc(decoder, &length) { return ColorProfile(iccData: Data(bytes: icc, count: length)) }
        if wi_png_has_srgb(decoder) != 0 { return nil }
        let gamma = wi_png_gamma(decoder)
        var xy = [Int32](repeating: 0, count: 8)
        let hasChromaticities = wi_png_chromaticities(decoder, &xy) != 0
        guard gamma > 0 || hasChromaticities else { return nil }
        func point(_ i: Int) -> (x: Double, y: Double) { (Double(xy[i]) / 100_000, Double(xy[i + 1]) / 100_000) }
        let primaries = hasChromaticities
            ? ColorProfile.Primaries(white: point(0), red: point(2), green: point(4), blue: point(6)) : .sRGB
        // gAMA stores the encoding exponent; no gAMA with a cHRM means the usual 1/2.2.
        return ColorProfile.rgb(primaries, transfer: gamma > 0 ? .gamma(100_000 / Double(gamma)) : .sRGB)
    }

    /// Feeds `data[fed...]`; `data` is everything so far. Pixels go to a zeroed buffer the
    /// decoder owns, readable at any time through ``bitmap()`` (incremental decoding).
    func feed(_ data: Data, stopAtHeader: Bool = false) throws {
        guard let decoder else { throw ImageCoderError.outOfMemory }
        guard data.count > fed, !isComplete else { return }
        var status = feedRaw(data, upTo: data.count)
        if status == Int32(WI_PNG_NEED_BUFFER) {
            if stopAtHeader { return }
            guard wi_png_decoder_set_buffer(decoder, nil) == 0 else { throw ImageCoderError.outOfMemory }
            status = wi_png_decoder_feed(decoder, nil, 0)
        }
        try check(status)
    }

    /// Decodes a whole PNG stream straight into the returned bitmap's storage (no copy);
    /// `checkHeader` sees the decoder once the header is read, before the bitmap is allocated.
    /// A plain non-interlaced stream takes the whole-buffer path (``decodeImageData(_:run:)``);
    /// libpng reads its header all the same, and goes on with everything else.
    func decodeAll(_ data: Data, checkHeader: (PNGPushDecoder) throws -> Void = { _ in }) throws -> Bitmap {
        guard let decoder else { throw ImageCoderError.outOfMemory }
        let run = allowsWholeBuffer ? data.withUnsafeBytes { PNGImageDataRun($0) } : nil
        var status = feedRaw(data, upTo: run?.headerEnd ?? data.count)
        if status == Int32(WI_PNG_NEED_MORE), fed < data.count { status = feedRaw(data, upTo: data.count) }
        guard status == Int32(WI_PNG_NEED_BUFFER) else {
            try check(status)
            throw ImageCoderError.truncated(.png)  // the header never completed
        }
        try checkHeader(self)
        if let run, let bitmap = decodeImageData(data, run: run) {
            isComplete = true
            decodedWholeBuffer = true
            return bitmap
        }
        let size = self.size
        return try Bitmap(width: size.width, height: size.height) { buffer in
            wi_png_decoder_set_buffer(decoder, buffer.baseAddress)
            // The buffer is only valid inside this closure: detach it on every way out.
            defer { wi_png_decoder_detach_buffer(decoder) }
            try check(feedRaw(data, upTo: data.count))
            guard isComplete else { throw ImageCoderError.truncated(.png) }
        }
    }

    /// Feeds `data[fed..<end]` (nothing new resumes with the bytes libpng kept when it paused).
    private func feedRaw(_ data: Data, upTo end: Int) -> Int32 {
        guard let decoder else { return Int32(WI_PNG_ERROR) }
        let start = fed
        fed = max(fed, end)
        guard end > start else { return wi_png_decoder_feed(decoder, nil, 0) }
        return data.withUnsafeBytes { raw in
            wi_png_decoder_feed(decoder, raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, end - start)
        }
    }

    private func check(_ status: Int32) throws {
        switch status {
        case Int32(WI_PNG_COMPLETE): isComplete = true
        case Int32(WI_PNG_NEED_MORE): break
        default: throw failure()
        }
    }

    /// Feeds just enough to read the header (animationInfo's cheap path).
    func feedUntilHeader(_ data: Data) throws {
        var end = min(data.count, 4096)
        while true {
            try feed(data.prefix(end), stopAtHeader: true)
            if headerReady || end == data.count { break }
            end = min(data.count, end * 2)
        }
        guard headerReady else { throw ImageCoderError.truncated(.png) }
    }

    /// The pixels so far (rows not yet received are transparent), nil before the header.
    func bitmap() -> Bitmap? {
        guard let decoder, headerReady, let pixels = wi_png_pixels(decoder) else { return nil }
        let size = self.size
        return Bitmap(width: size.width, height: size.height) { buffer in
            buffer.baseAddress!.update(from: pixels, count: buffer.count)
        }
    }

    private func failure() -> ImageCoderError {
        guard let decoder else { return .outOfMemory }
        if wi_png_too_large(decoder) != 0 {
            return .tooLarge(width: size.width, height: size.height, limit: maxPixelCount)
        }
        let message = String(cString: wi_png_error(decoder))
        return .corrupt(.png, reason: message.isEmpty ? "libpng error" : message)
    }
}
