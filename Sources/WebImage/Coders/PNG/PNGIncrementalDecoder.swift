import Foundation

/// Shows a PNG while it downloads: libpng's push reader keeps its state, so each update feeds
/// only the new bytes. Rows not yet received are transparent; an interlaced file fills in pass
/// by pass.
final class PNGIncrementalDecoder: ReceivedBytesBuffering {
    private let options: ImageDecodeOptions
    private var decoder: PNGPushDecoder
    var data = Data()
    private var isFinal = false
    private var failure: (any Error)?

    init(options: ImageDecodeOptions) {
        self.options = options
        self.decoder = PNGPushDecoder(maxPixelCount: options.maxPixelCount)
    }

    func update(_ data: Data, isFinal: Bool) {
        self.data = data
        self.isFinal = isFinal
        guard failure == nil else { return }
        do { try decoder.feed(data) } catch { failure = error }
    }

    func decodedImage() throws -> Image? {
        // The final image goes through the full decoder: APNG frames, thumbnails, original data.
        if isFinal { return try PNGCoder().decode(data, options: options) }
        if let failure { throw failure }
        guard var bitmap = decoder.bitmap() else { return nil }
        if let target = options.targetSize(for: bitmap.size) { bitmap = bitmap.resampled(to: target) }
        return Image(
            bitmap: bitmap, scale: options.scaleFactor ?? 1, format: .png, hasAlpha: decoder.hasAlpha,
            isIncremental: true
        ).colorManaged(decoder.colorProfile, options: options)
    }
}
