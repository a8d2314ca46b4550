import Foundation

/// GIF through giflib, with SDWebImage's semantics: every frame composited on the logical screen
/// (disposal methods, transparency, interlace, local and global colour tables), delays under
/// 11 ms played at 100 ms, the NETSCAPE2.0 loop count (absent = plays once), thumbnails and
/// scale-down by resampling each frame. Encodes still and animated images through a median-cut
/// quantizer (`ColorQuantizer`).
public struct GIFCoder: AnimatedImageCoder {
    public init() {}

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .gif }

    /// Decodes every frame (or the first, with ``ImageDecodeOptions/decodeFirstFrameOnly``).
    /// The pixel limit applies to the logical screen and to each frame rectangle, checked before
    /// pixel memory is allocated; frames beyond ``ImageDecodeOptions/maxAnimationBytes`` together
    /// are scaled down.
    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        try GIFDecoding.decode(data, options: options)
    }

    /// Frame count, loop count and canvas size, read without decoding any pixels.
    public func animationInfo(of data: Data) throws -> AnimationInfo {
        try GIFDecoding.animationInfo(data)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .gif }

    /// Writes every frame (or the first, with ``ImageEncodeOptions/encodeFirstFrameOnly``) with
    /// its duration rounded to centiseconds and the image's loop count.
    public func encode(_ image: Image, as format: ImageFormat = .gif, options: ImageEncodeOptions = .default) throws -> Data {
        guard format == .gif else { throw ImageCoderError.encodingFailed(format, reason: "GIFCoder writes GIF only") }
        return try GIFEncoding.encode(image, options: options)
    }
}
