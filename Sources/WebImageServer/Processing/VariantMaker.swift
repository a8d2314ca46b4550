import Crypto
import Foundation
import WebImage

/// Makes one variant from a source's bytes: the header first (the source pixel limit and the
/// ``OutputBudget`` — output pixels, and frames × pixels × 4 of an animation — are checked on
/// sizes, before any pixel is decoded; the processor checks every later size again), then a decode at the
/// smallest size the variant needs on WebImage's decoding queue (JPEG's DCT scaling and WebP's
/// scaler never make the full-size bitmap), then the thumbor geometry, filters and encode on its
/// processing queue.
struct VariantMaker: Sendable {
    struct Limits: Sendable {
        var sourcePixels: Int
        var outputPixels: Int
        var animationBytes: Int
    }

    let processor: ThumborProcessor
    let output: ThumborProcessor.Output
    let limits: Limits
    let coders: ImageCodersManager

    /// The encoded variant of `data` for a client whose `Accept` is `accept`.
    func make(from data: Data, accept: String?) async throws(ServerFailure) -> CachedResult {
        let header: ImageHeader
        do { header = try coders.header(of: data) } catch { throw ServerFailure(decoding: error) }
        let stored = header.pixelSize
        if stored.width.multipliedReportingOverflow(by: stored.height).overflow || stored.pixelCount > limits.sourcePixels {
            throw .tooLarge
        }
        let source = header.uprightSize
        let budget = OutputBudget(pixels: limits.outputPixels, animationBytes: limits.animationBytes)
        do { try budget.check(processor.outputSize(forSource: source), frames: header.frameCount) } catch { throw .tooLarge }
        let box = processor.decodeBox(forSource: source)
        let options = ImageDecodeOptions(
            thumbnailPixelSize: box.map { header.orientation.swapsDimensions ? PixelSize(width: $0.size.height, height: $0.size.width) : $0.size },
            preserveAspectRatio: box?.keepsAspectRatio ?? true,
            maxPixelCount: limits.sourcePixels, maxAnimationBytes: limits.animationBytes)
        let coders = self.coders
        let decoded: Result<Image, ServerFailure> = await ImageWorkQueue.decoding.run {
            do { return .success(try coders.decode(data, options: options)) } catch { return .failure(ServerFailure(decoding: error)) }
        }
        let image = try decoded.get()
        let format = OutputFormat(requested: output.format, accept: accept, source: image) { coders.canEncode(to: $0) }
        let (processor, output) = (self.processor, self.output)
        let encoded: Result<Data, ServerFailure> = await ImageWorkQueue.processing.run {
            let made: Image?
            do { made = try processor.process(image, sourceSize: source, budget: budget) } catch { return .failure(.tooLarge) }
            guard let variant = made else {
                return .failure(.badRequest("the options cannot be applied to this image"))
            }
            return Self.encode(variant, as: format.format, output: output, coders: coders)
        }
        let bytes = try encoded.get()
        return CachedResult(data: bytes, contentType: format.contentType, etag: Self.etag(bytes), variesByAccept: format.negotiated)
    }

    /// Encodes at the asked quality; with `max_bytes`, lowers the quality until the bytes fit.
    private static func encode(_ image: Image, as format: ImageFormat, output: ThumborProcessor.Output, coders: ImageCodersManager) -> Result<Data, ServerFailure> {
        var quality = Double(output.quality ?? 80) / 100
        while true {
            let options = ImageEncodeOptions(quality: quality)
            guard let data = try? coders.encode(image, as: format, options: options) else {
                return .failure(.badRequest("the image cannot be written as \(format.rawValue)"))
            }
            guard let limit = output.maxBytes, data.count > limit, quality > 0.1, format == .jpeg || format == .webp else {
                return .success(data)
            }
            quality -= 0.1
        }
    }

    /// A strong validator of the bytes themselves.
    static func etag(_ data: Data) -> String {
        let digest = SHA256.hash(data: data)
        return "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }
}
