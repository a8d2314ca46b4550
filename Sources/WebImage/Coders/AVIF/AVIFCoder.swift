import Foundation

/// AVIF through libavif (Debian's 0.11, AV1 by dav1d/libgav1 and aom): stills and image sequences
/// (every frame with its duration; libavif 0.11 reads no loop count, so a sequence plays forever),
/// 8/10/12-bit to RGBA8, alpha, thumbnails and scale-down by resampling each frame, and the same
/// limits as every decoder (pixel limit from the header, animation budget). Encodes stills, with
/// alpha, at a quality and an AV1 speed.
public struct AVIFCoder: AnimatedImageCoder {
    /// AV1 encoder speed, 0 (slowest, smallest) to 10 (fastest). The default, 8, suits a server
    /// making thumbnails on request (BENCHMARKS.md has the size/time trade-off).
    public var speed: Int

    public init(speed: Int = 8) {
        self.speed = max(0, min(10, speed))
    }

    public var coderKey: String? { "AVIFCoder" }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .avif }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        try AVIFDecoding.decode(data, options: options)
    }

    public func animationInfo(of data: Data) throws -> AnimationInfo {
        let header = try AVIFDecoding.header(data)
        return AnimationInfo(frameCount: header.frameCount, loopCount: 0, canvasSize: header.pixelSize)
    }

    public func header(of data: Data) throws -> ImageHeader {
        try AVIFDecoding.header(data)
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .avif }

    /// Writes the first frame: YUV 4:2:0 at the asked quality (or, with
    /// ``ImageEncodeOptions/lossless``, 4:4:4 that decodes to the same bytes), alpha as its own AV1 plane.
    public func encode(_ image: Image, as format: ImageFormat = .avif, options: ImageEncodeOptions = .default) throws -> Data {
        guard format == .avif else { throw ImageCoderError.encodingFailed(format, reason: "AVIFCoder writes AVIF only") }
        return try AVIFEncoding.encode(options.framesToEncode(image)[0].bitmap, hasAlpha: image.hasAlpha,
                                       quality: options.quality, lossless: options.lossless, speed: speed,
                                       icc: options.profileToEmbed(for: image))
    }
}
