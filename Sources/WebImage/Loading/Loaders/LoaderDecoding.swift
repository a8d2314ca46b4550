import Foundation
import Metrics

/// The decode step every loader shares: options from the request, coder errors as
/// ``WebImageError/badImageData(reason:)``.
enum LoaderDecoding {
    /// `webimage_decode_seconds`: every loader decode (a no-op until the app bootstraps metrics).
    private static let decodeTime = Metrics.Timer(label: "webimage_decode_seconds")

    /// The decode options for `url`: the context's, plus the key's scale and the decode-related
    /// loader options.
    static func decodeOptions(for url: URL, options: DownloaderOptions, context: ImageLoaderContext) -> ImageDecodeOptions {
        var decode = context.decodeOptions
        decode.scaleFactor = context.scaleFactor ?? ImageScale.scaleFactor(forKey: context.cacheKey ?? url.absoluteString)
        if options.contains(.decodeFirstFrameOnly) { decode.decodeFirstFrameOnly = true }
        if options.contains(.scaleDownLargeImages), decode.scaleDownLimitBytes == nil {
            decode.scaleDownLimitBytes = context.scaleDownLimitBytes
        }
        return decode
    }

    static func coder(for context: ImageLoaderContext) -> any ImageCoder {
        context.coder ?? ImageCodersManager.shared
    }

    /// Decodes all of `data`. Runs on the caller's thread: never call it on an event loop, unless
    /// the coder says the decode is quick (``QuickDecoding``).
    static func decode(
        _ data: Data, url: URL, options: DownloaderOptions, context: ImageLoaderContext
    ) -> Result<Image, WebImageError> {
        guard !data.isEmpty else { return .failure(.badImageData(reason: "the image data is empty")) }
        let start = ContinuousClock.now
        defer { decodeTime.recordDuration(ContinuousClock.now - start) }
        do {
            return .success(try coder(for: context).decode(data, options: decodeOptions(for: url, options: options, context: context)))
        } catch let error as ImageCoderError {
            return .failure(error.isOverDecodeLimit ? .overDecodeLimit(error) : .badImageData(reason: error.description))
        } catch {
            return .failure(.badImageData(reason: "\(error)"))
        }
    }
}
