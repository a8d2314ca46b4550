import CWebImageShims
import Foundation

/// JPEG through libjpeg-turbo: baseline, progressive, grayscale and CMYK/YCCK decode, EXIF
/// orientation, thumbnails via DCT scaling, incremental decoding, and encoding with a quality.
public struct JPEGCoder: ProgressiveImageCoder {
    public init() {}

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        // A non-partial decode either returns an image or throws.
        try JPEGDecoding.decode(data, options: options, partial: false)!
    }

    /// Size and EXIF orientation from the markers before the scan (libjpeg's header read).
    public func header(of data: Data) throws -> ImageHeader {
        try JPEGDecoding.header(data)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }

    /// JPEG has no alpha: transparent pixels are composited over white first.
    public func encode(_ image: Image, as format: ImageFormat = .jpeg, options: ImageEncodeOptions = .default) throws -> Data {
        guard format == .jpeg else { throw ImageCoderError.encodingFailed(format, reason: "JPEGCoder writes JPEG only") }
        var bitmap = options.framesToEncode(image)[0].bitmap
        if image.hasAlpha { bitmap = bitmap.flattened(over: RGBA(r: 255, g: 255, b: 255)) }
        let quality = Int32(max(1, min(100, (options.quality * 100).rounded())))
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let icc = options.profileToEmbed(for: image) ?? Data()
        let status = bitmap.pixels.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBytes { profile in
                wi_jpeg_encode_rgba(
                    pixels.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                    quality, options.progressive ? 1 : 0, profile.baseAddress?.assumingMemoryBound(to: UInt8.self), profile.count,
                    &out, &size, &message, message.count)
            }
        }
        guard status == 0, let out else {
            throw ImageCoderError.encodingFailed(.jpeg, reason: String(cBuffer: message))
        }
        defer { wi_free(out) }
        return Data(bytes: out, count: size)
    }

    public func canIncrementallyDecode(_ data: Data) -> Bool { canDecode(data) }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(options: options)
    }
}

enum JPEGDecoding {
    static func header(_ data: Data) throws -> ImageHeader {
        if data.isEmpty { throw ImageCoderError.emptyData }
        return try data.withUnsafeBytes { raw in
            guard let decoder = wi_jpeg_decoder_create(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count) else {
                throw ImageCoderError.outOfMemory
            }
            defer { wi_jpeg_decoder_destroy(decoder) }
            var header = wi_jpeg_header()
            guard wi_jpeg_read_header(decoder, &header) == 0 else { throw failure(decoder) }
            return imageHeader(header, dataSize: data.count)
        }
    }

    static func imageHeader(_ header: wi_jpeg_header, dataSize: Int) -> ImageHeader {
        let components = max(1, min(4, Int(header.components)))
        let sampling = withUnsafeBytes(of: header.h_samp) { h in
            withUnsafeBytes(of: header.v_samp) { v in
                (0..<components).map { c in
                    PixelSize(width: Int(h.load(fromByteOffset: c * 4, as: Int32.self)), height: Int(v.load(fromByteOffset: c * 4, as: Int32.self)))
                }
            }
        }
        return ImageHeader(
            format: .jpeg, pixelSize: PixelSize(width: Int(header.width), height: Int(header.height)),
            orientation: orientation(of: header), isProgressive: header.is_multi_scan != 0,
            bitDepth: Int(header.data_precision), componentSampling: sampling, hasAlpha: false,
            hasColorProfile: header.icc != nil, dataSize: dataSize)
    }

    private static func orientation(of header: wi_jpeg_header) -> ImageOrientation {
        header.exif.map { EXIFReader.orientation(in: UnsafeRawBufferPointer(start: $0, count: header.exif_length)) } ?? .up
    }

    /// Decodes `data`. With `partial`, a cut-off stream is completed with grey (libjpeg's fake
    /// EOI) and a stream too short for a header gives `nil`; without it, both are errors.
    static func decode(_ data: Data, options: ImageDecodeOptions, partial: Bool) throws -> Image? {
        if data.isEmpty {
            if partial { return nil }
            throw ImageCoderError.emptyData
        }
        let decoded: (Bitmap, ImageOrientation, scaled: Bool, ColorProfile?)? = try data.withUnsafeBytes { raw in
            guard let decoder = wi_jpeg_decoder_create(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count) else {
                throw ImageCoderError.outOfMemory
            }
            defer { wi_jpeg_decoder_destroy(decoder) }
            var header = wi_jpeg_header()
            guard wi_jpeg_read_header(decoder, &header) == 0 else {
                if partial { return nil }
                throw failure(decoder)
            }
            let size = PixelSize(width: Int(header.width), height: Int(header.height))
            try options.checkPixelLimit(width: size.width, height: size.height)
            let plan = JPEGDecodingCost(header: imageHeader(header, dataSize: data.count), options: options)
            try options.checkDecodeBudget(plan.total)
            // libjpeg's share of the budget caps its own allocations, the progress monitor its scans.
            let libjpegShare = options.maxDecodeBytes.map { max(plan.libjpeg, $0 - (plan.total - plan.libjpeg)) } ?? 0
            wi_jpeg_set_limits(decoder, libjpegShare, Int32(clamping: max(0, options.maxProgressiveScans ?? 0)))
            let orientation = orientation(of: header)
            let target = options.targetSize(for: size)
            var outWidth: UInt32 = 0
            var outHeight: UInt32 = 0
            let scaleNumerator = target.map { dctScaleNumerator(from: size, to: $0) } ?? 8
            guard wi_jpeg_start(decoder, UInt32(scaleNumerator), header.is_cmyk, &outWidth, &outHeight) == 0 else {
                let error = failure(decoder, options: options, planned: plan.total)
                // A limit is final even for a partial decode: more bytes only make it worse.
                if partial, case .corrupt = error { return nil }
                if partial, case .truncated = error { return nil }
                throw error
            }
            var bitmap = try Bitmap(width: Int(outWidth), height: Int(outHeight)) { buffer in
                try readRows(decoder, into: buffer, width: Int(outWidth), height: Int(outHeight),
                             cmyk: header.is_cmyk != 0, inverted: header.adobe_inverted != 0)
            }
            guard wi_jpeg_finish(decoder) == 0 else { throw failure(decoder, options: options, planned: plan.total) }
            if !partial && wi_jpeg_truncated(decoder) != 0 { throw ImageCoderError.truncated(.jpeg) }
            if let target, target != bitmap.size { bitmap = bitmap.resampled(to: target) }
            let profile = header.icc.flatMap { ColorProfile(iccData: Data(bytes: $0, count: header.icc_length)) }
            return (bitmap, orientation, target != nil, profile)
        }
        guard let (bitmap, orientation, scaled, profile) = decoded else { return nil }
        return Image(
            bitmap: bitmap, scale: options.scaleFactor ?? 1, orientation: orientation, format: .jpeg,
            originalData: partial || scaled ? nil : data, hasAlpha: false, isIncremental: partial
        ).colorManaged(profile, options: options)
    }

    /// The smallest M (libjpeg-turbo scales by M/8) whose output still covers `target`, so the
    /// final resample only ever shrinks and the full-size bitmap never exists.
    static func dctScaleNumerator(from size: PixelSize, to target: PixelSize) -> Int {
        for m in 1...8 {
            let w = (size.width * m + 7) / 8
            let h = (size.height * m + 7) / 8
            if w >= target.width && h >= target.height { return m }
        }
        return 8
    }

    private static func readRows(
        _ decoder: OpaquePointer, into buffer: UnsafeMutableBufferPointer<UInt8>, width: Int, height: Int,
        cmyk: Bool, inverted: Bool
    ) throws {
        let stride = width * 4
        var done = 0
        if !cmyk {
            var got: UInt32 = 0
            guard wi_jpeg_read_rows(decoder, buffer.baseAddress, stride, UInt32(height), &got) == 0 else {
                throw failure(decoder)
            }
            done = Int(got)
        } else {
            // libjpeg gives CMYK samples; Adobe files store them inverted (the common case).
            let batch = 16
            var scratch = [UInt8](repeating: 0, count: batch * stride)
            while done < height {
                var got: UInt32 = 0
                let status = scratch.withUnsafeMutableBufferPointer {
                    wi_jpeg_read_rows(decoder, $0.baseAddress, stride, UInt32(min(batch, height - done)), &got)
                }
                guard status == 0 else { throw failure(decoder) }
                if got == 0 { break }
                for i in 0..<(Int(got) * width) {
                    let s = i * 4
                    let d = done * stride + s
                    var c = Int(scratch[s]), m = Int(scratch[s + 1]), y = Int(scratch[s + 2]), k = Int(scratch[s + 3])
                    if !inverted { (c, m, y, k) = (255 - c, 255 - m, 255 - y, 255 - k) }
                    buffer[d] = UInt8((c * k + 127) / 255)
                    buffer[d + 1] = UInt8((m * k + 127) / 255)
                    buffer[d + 2] = UInt8((y * k + 127) / 255)
                    buffer[d + 3] = 255
                }
                done += Int(got)
            }
        }
        if done < height {
            // Only reachable on a libjpeg that stops early; keep the bitmap fully initialised.
            UnsafeMutableBufferPointer(rebasing: buffer[(done * stride)...]).initialize(repeating: 128)
        }
    }

    private static func failure(_ decoder: OpaquePointer, options: ImageDecodeOptions? = nil, planned: Int = 0) -> ImageCoderError {
        switch Int(wi_jpeg_limit_hit(decoder)) {
        case Int(WI_JPEG_LIMIT_SCANS): return .tooManyScans(limit: options?.maxProgressiveScans ?? 500)
        case Int(WI_JPEG_LIMIT_MEMORY) where options?.maxDecodeBytes != nil:
            return .decodeBudgetExceeded(planned: planned, limit: options?.maxDecodeBytes ?? 0)
        default: break
        }
        if wi_jpeg_truncated(decoder) != 0 { return .truncated(.jpeg) }
        return .corrupt(.jpeg, reason: String(cString: wi_jpeg_error(decoder)))
    }
}
