import Foundation
import WebImage

/// Accepts bytes that pass ``ImageIntegrity/check(_:maxPixelCount:)`` — their structure, not their
/// pixels. For loads whose only job is to put the original bytes in the disk cache (`prefetch`,
/// `bench-download`): decoding a 30 KB JPEG costs more CPU than downloading and storing it and the
/// pixels would be thrown away, yet a truncated or mangled body must not reach the cache. The
/// image it answers is a 1×1 placeholder, so such loads must store to disk only, never to a
/// memory cache or a view.
struct StructureCheckCoder: ImageCoder {
    static let placeholder = Image(bitmap: Bitmap(width: 1, height: 1))

    /// Stateless: every structure check decodes alike, so repeats of a URL share one download.
    var coderKey: String? { "StructureCheckCoder" }

    func canDecode(_ data: Data) -> Bool { ImageCodersManager.shared.canDecode(data) }

    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try ImageIntegrity.check(data, maxPixelCount: options.maxPixelCount)
        return Self.placeholder
    }

    func canEncode(to format: ImageFormat) -> Bool { false }

    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "structure-check coder")
    }
}
