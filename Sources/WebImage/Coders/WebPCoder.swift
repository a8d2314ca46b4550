import Foundation

public struct WebPCoder: AnimatedImageCoder {
    public init() {}
    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }
    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        throw ImageCoderError.unsupportedFormat(.webp)
    }
    public func animationInfo(of data: Data) throws -> AnimationInfo { throw ImageCoderError.unsupportedFormat(.webp) }
    public func canEncode(to format: ImageFormat) -> Bool { false }
    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "not built")
    }
}
