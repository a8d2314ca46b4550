import CWebP
import Foundation

/// Shows a still WebP while it downloads with libwebp's incremental decoder (`WebPIUpdate`),
/// which takes every byte so far and resumes where it stopped. Rows arrive top to bottom into
/// a buffer this object owns; rows not decoded yet stay transparent.
///
/// Animations show nothing until the download ends (as SDWebImage does), then decode fully.
final class WebPIncrementalDecoder: ReceivedBytesBuffering {
    private let options: ImageDecodeOptions
    var data = Data()
    private var isFinal = false
    private var failure: ImageCoderError?
    private var isAnimated = false
    private var hasAlpha = false
    private var stream: WebPIncrementalStream?

    init(options: ImageDecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isFinal: Bool) {
        if data.count < self.data.count { reset() }  // not a continuation: start over
        self.data = data
        self.isFinal = isFinal
        guard failure == nil, !isAnimated, !isFinal else { return }
        do {
            try data.withUnsafeBytes { bytes in
                if stream == nil { try start(bytes) }
                try stream?.update(bytes)
            }
        } catch let error as ImageCoderError {
            failure = error
        } catch {
            failure = .corrupt(.webp, reason: "\(error)")
        }
    }

    func decodedImage() throws -> Image? {
        // The final image goes through the full decoder: frames, EXIF orientation, original data.
        if isFinal { return try WebPCoder().decode(data, options: options) }
        if let failure { throw failure }
        guard let bitmap = stream?.bitmap() else { return nil }
        return Image(
            bitmap: bitmap, scale: options.scaleFactor ?? 1, format: .webp, hasAlpha: hasAlpha, isIncremental: true)
    }

    /// Reads the header once it has arrived and, for a still within the pixel limit, allocates
    /// the output and the libwebp decoder.
    private func start(_ bytes: UnsafeRawBufferPointer) throws {
        let features: WebPBitstreamFeatures
        do {
            features = try WebPStatus.features(of: bytes)
        } catch ImageCoderError.truncated(_) {
            return  // the header has not fully arrived
        } catch ImageCoderError.emptyData {
            return
        }
        if features.has_animation != 0 {
            isAnimated = true
            return
        }
        let size = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.checkPixelLimit(width: size.width, height: size.height)
        hasAlpha = features.has_alpha != 0
        stream = try WebPIncrementalStream(size: size, target: options.targetSize(for: size))
    }

    private func reset() {
        stream = nil
        failure = nil
        isAnimated = false
        hasAlpha = false
    }
}

/// One `WebPIDecoder` and the zero-filled RGBA buffer it writes into. libwebp keeps pointers to
/// both the config and the buffer, so they live on the heap as long as the decoder does.
private final class WebPIncrementalStream {
    private let size: PixelSize
    private let pixels: UnsafeMutableBufferPointer<UInt8>
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private let decoder: OpaquePointer
    private var isComplete = false

    init(size source: PixelSize, target: PixelSize?) throws {
        size = target ?? source
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        guard WebPInitDecoderConfig(config) != 0 else {
            config.deallocate()
            throw ImageCoderError.corrupt(.webp, reason: "libwebp decoder ABI mismatch")
        }
        pixels = .allocate(capacity: size.pixelCount * Bitmap.bytesPerPixel)
        pixels.initialize(repeating: 0)  // transparent until decoded
        if let target {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(target.width)
            config.pointee.options.scaled_height = Int32(target.height)
        }
        config.pointee.output.colorspace = MODE_RGBA
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = pixels.baseAddress
        config.pointee.output.u.RGBA.stride = Int32(size.width * Bitmap.bytesPerPixel)
        config.pointee.output.u.RGBA.size = pixels.count
        // No data yet: the decoder parses the headers itself from the first WebPIUpdate.
        guard let decoder = WebPIDecode(nil, 0, config) else {
            pixels.deallocate()
            config.deallocate()
            throw ImageCoderError.outOfMemory
        }
        self.decoder = decoder
    }

    deinit {
        WebPIDelete(decoder)  // before the buffer it writes into goes away
        WebPFreeDecBuffer(&config.pointee.output)
        config.deallocate()
        pixels.deallocate()
    }

    /// Decodes what `bytes` (everything so far) adds. Suspension just means more is needed.
    func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isComplete, let base = bytes.baseAddress else { return }
        let status = WebPIUpdate(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        switch status {
        case VP8_STATUS_OK: isComplete = true
        case VP8_STATUS_SUSPENDED, VP8_STATUS_NOT_ENOUGH_DATA: break
        default: if let error = WebPStatus.error(status) { throw error }
        }
    }

    /// The rows decoded so far, the rest transparent.
    func bitmap() -> Bitmap {
        var lastRow: Int32 = 0
        let decodedRows = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil) == nil ? 0 : Int(lastRow)
        let rowBytes = size.width * Bitmap.bytesPerPixel
        let decodedBytes = min(pixels.count, max(0, decodedRows) * rowBytes)
        return Bitmap(width: size.width, height: size.height) { buffer in
            guard let destination = buffer.baseAddress, let source = pixels.baseAddress else { return }
            destination.update(from: source, count: decodedBytes)
            // Only rows up to last_y are final; the rest show transparent whatever libwebp has begun.
            (destination + decodedBytes).initialize(repeating: 0, count: buffer.count - decodedBytes)
        }
    }
}
