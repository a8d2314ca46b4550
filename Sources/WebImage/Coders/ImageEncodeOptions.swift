import Foundation

/// How to encode: SDWebImage's encoding options as a value type.
public struct ImageEncodeOptions: Sendable, Hashable {
    /// 0...1; JPEG and lossy WebP quality (SD's `compressionQuality`). 1 = best.
    public var quality: Double
    /// WebP and AVIF: lossless rather than lossy.
    public var lossless: Bool
    /// JPEG: write a progressive file (loads coarse-to-fine over slow links).
    public var progressive: Bool
    /// Encode only the first frame of an animation.
    public var encodeFirstFrameOnly: Bool
    /// Scale down before encoding so that neither side exceeds this box (aspect kept).
    public var maxPixelSize: PixelSize?
    /// Write ``Image/colorProfile`` into the file (JPEG APP2, PNG iCCP, AVIF colr) when the image
    /// has one — its pixels mean nothing without it. Images in sRGB carry none.
    public var embedsColorProfile: Bool

    public init(
        quality: Double = 0.9, lossless: Bool = false, progressive: Bool = false,
        encodeFirstFrameOnly: Bool = false, maxPixelSize: PixelSize? = nil, embedsColorProfile: Bool = true
    ) {
        self.quality = min(1, max(0, quality))
        self.lossless = lossless
        self.progressive = progressive
        self.encodeFirstFrameOnly = encodeFirstFrameOnly
        self.maxPixelSize = maxPixelSize
        self.embedsColorProfile = embedsColorProfile
    }

    /// The ICC bytes to embed for `image`, if any.
    func profileToEmbed(for image: Image) -> Data? {
        embedsColorProfile ? image.colorProfile?.data : nil
    }

    public static let `default` = ImageEncodeOptions()

    /// The frames to write: the first only when asked, each scaled into ``maxPixelSize``.
    func framesToEncode(_ image: Image) -> [ImageFrame] {
        let frames = encodeFirstFrameOnly ? [image.frames[0]] : image.frames
        guard let box = maxPixelSize else { return frames }
        let target = ThumbnailMath.scaledSize(image.pixelSize, fitting: box, preserveAspectRatio: true)
        guard target != image.pixelSize else { return frames }
        return frames.map { ImageFrame(bitmap: $0.bitmap.resampled(to: target), duration: $0.duration) }
    }
}
