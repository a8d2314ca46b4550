import Foundation

/// JPEG XL through libjxl (Debian's 0.7): stills and animations (coalesced frames with their
/// durations and loop count), 8- and 16-bit and float sources to RGBA8, alpha, the EXIF-style
/// orientation reported as the other coders report it (pixels as stored), and the same limits as
/// every decoder (pixel limit from the basic info, animation budget from a frame-header walk).
/// Decode only: nothing asks WebImage for JPEG XL output yet (no browser negotiates it).
public struct JXLCoder: AnimatedImageCoder {
    public init() {}

    public var coderKey: String? { "JXLCoder" }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpegXL }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        try JXLDecoding.decode(data, options: options)
    }

    public func animationInfo(of data: Data) throws -> AnimationInfo {
        let header = try JXLDecoding.scan(data)
        return AnimationInfo(frameCount: header.durations.count, loopCount: header.loopCount, canvasSize: header.size)
    }

    public func header(of data: Data) throws -> ImageHeader {
        let header = try JXLDecoding.scan(data)
        return header.imageHeader(dataSize: data.count)
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "JXLCoder decodes only")
    }
}
