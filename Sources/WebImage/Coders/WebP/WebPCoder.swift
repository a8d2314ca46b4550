import CWebP
import Foundation

/// WebP through libwebp: lossy, lossless and alpha stills decoded straight into the bitmap,
/// animations composited by libwebpdemux, EXIF orientation, thumbnails through libwebp's own
/// scaler, incremental decoding, and lossy/lossless/animated encoding (libwebpmux).
/// SDWebImage's `SDImageWebPCoder`.
public struct WebPCoder: ProgressiveImageCoder, AnimatedImageCoder {
    public init() {}

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .webp }

    /// Decodes a still image or every frame of an animation (the first only with
    /// ``ImageDecodeOptions/decodeFirstFrameOnly``). Throws ``ImageCoderError``.
    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        if data.isEmpty { throw ImageCoderError.emptyData }
        return try data.withUnsafeBytes { bytes in
            let features = try WebPStatus.features(of: bytes)
            if options.maxDecodeBytes != nil {
                let count = features.has_animation != 0 ? try animationInfo(of: data).frameCount : 1
                try options.checkDecodeBudget(decodingCost(of: WebPDecodingCost.header(bytes, features: features, frameCount: count), options: options))
            }
            if features.has_animation != 0 {
                let animation = try WebPAnimationDecoding.decode(bytes, features: features, options: options)
                return Image(
                    frames: animation.frames, loopCount: animation.loopCount, scale: options.scaleFactor ?? 1,
                    orientation: animation.orientation, format: .webp,
                    originalData: animation.scaled ? nil : data, hasAlpha: features.has_alpha != 0
                ).colorManaged(WebPMetadata.colorProfile(in: bytes), options: options)
            }
            let (bitmap, scaled) = try WebPStillDecoding.decode(bytes, features: features, options: options)
            return Image(
                bitmap: bitmap, scale: options.scaleFactor ?? 1, orientation: WebPMetadata.orientation(in: bytes),
                format: .webp, originalData: scaled ? nil : data, hasAlpha: features.has_alpha != 0
            ).colorManaged(WebPMetadata.colorProfile(in: bytes), options: options)
        }
    }

    /// Canvas, frame count and EXIF orientation from the RIFF chunks.
    public func header(of data: Data) throws -> ImageHeader {
        let info = try animationInfo(of: data)
        return try data.withUnsafeBytes { bytes in
            try WebPDecodingCost.header(bytes, features: WebPStatus.features(of: bytes), frameCount: info.frameCount)
        }
    }

    /// Frame count, loop count and canvas size from the RIFF chunks, without decoding pixels.
    public func animationInfo(of data: Data) throws -> AnimationInfo {
        if data.isEmpty { throw ImageCoderError.emptyData }
        return try data.withUnsafeBytes { bytes in
            let features = try WebPStatus.features(of: bytes)
            let canvas = PixelSize(width: Int(features.width), height: Int(features.height))
            guard features.has_animation != 0 else { return AnimationInfo(frameCount: 1, loopCount: 0, canvasSize: canvas) }
            let info = WebPMetadata.withDemuxer(bytes) { demuxer in
                AnimationInfo(
                    frameCount: Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT)),
                    loopCount: Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT)),
                    canvasSize: canvas)
            }
            guard let info else { throw WebPMetadata.demuxFailure(bytes) }
            return info
        }
    }

    public func canEncode(to format: ImageFormat) -> Bool { format == .webp }

    /// Lossy at ``ImageEncodeOptions/quality`` or lossless (``ImageEncodeOptions/lossless``),
    /// alpha kept; several frames become an animation with the image's loop count.
    public func encode(_ image: Image, as format: ImageFormat = .webp, options: ImageEncodeOptions = .default) throws -> Data {
        guard format == .webp else { throw ImageCoderError.encodingFailed(format, reason: "WebPCoder writes WebP only") }
        let frames = options.framesToEncode(image)
        let data = frames.count > 1
            ? try WebPEncoding.encodeAnimation(frames, hasAlpha: image.hasAlpha, loopCount: image.loopCount, options: options)
            : try WebPEncoding.encodeStill(frames[0].bitmap, hasAlpha: image.hasAlpha, options: options)
        guard let icc = options.profileToEmbed(for: image) else { return data }
        return try WebPEncoding.embedding(icc: icc, in: data)
    }

    public func canIncrementallyDecode(_ data: Data) -> Bool { canDecode(data) }

    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        WebPIncrementalDecoder(options: options)
    }
}
