import Foundation

/// Accepts bytes that pass ``ImageIntegrity/check(_:maxPixelCount:maxAnimationBytes:maxDecodeBytes:)`` — their structure, not their
/// pixels. For loads whose only job is to put the original bytes in the disk cache (a bulk
/// prefetch, an image server's source cache): decoding costs more CPU than downloading and
/// storing the bytes and the pixels would be thrown away (or decoded later at another
/// size), yet a truncated or mangled body must not reach the cache. The image it answers is a
/// 1×1 ``placeholder``, so such loads must store to disk only, never to a memory cache or a view;
/// their bytes are in ``ImageResult/data``.
public struct StructureCheckCoder: ImageCoder {
    public static let placeholder = Image(bitmap: Bitmap(width: 1, height: 1))

    /// The most a check may allocate: JPEG XL, which only a decode can check, is refused past it.
    public let maxDecodeBytes: Int?

    public init(maxDecodeBytes: Int? = nil) {
        self.maxDecodeBytes = maxDecodeBytes
    }

    /// Stateless: every structure check decodes alike, so repeats of a URL share one download.
    public var coderKey: String? { "StructureCheckCoder" }

    public func canDecode(_ data: Data) -> Bool { ImageCodersManager.shared.canDecode(data) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        try ImageIntegrity.check(data, maxPixelCount: options.maxPixelCount, maxAnimationBytes: options.maxAnimationBytes,
                                 maxDecodeBytes: options.maxDecodeBytes ?? maxDecodeBytes)
        return Self.placeholder
    }

    /// The real header, from the coder that would decode the bytes.
    public func header(of data: Data) throws -> ImageHeader {
        try ImageCodersManager.shared.header(of: data)
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "structure-check coder")
    }
}
