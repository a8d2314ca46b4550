import Foundation

/// The bytes that go to disk for an image stored without data (SD's
/// `SDImageCacheDefine` encoding rule, made explicit). Public so a cache tier in another module
/// (WebImageRedis) writes the same bytes the disk tier would.
public enum ImageDiskEncoding {
    /// The format `image` is written in:
    /// - its original bytes' format when a coder can write it (a WebP stays WebP, a GIF a GIF),
    ///   except an animated PNG (there is no APNG encoder, and a PNG would keep only frame one) and
    ///   a JPEG that has gained transparency;
    /// - otherwise an animation becomes a GIF, an image with alpha a PNG, anything else a JPEG.
    public static func format(for image: Image, coders: ImageCodersManager) -> ImageFormat {
        let own = image.format
        let ownKeepsFrames = !image.isAnimated || own == .gif || own == .webp
        // A transformed JPEG can have gained transparency (round corners, rotation): JPEG would drop it.
        let ownKeepsAlpha = !image.hasAlpha || own != .jpeg
        if own != .undefined, ownKeepsFrames, ownKeepsAlpha, coders.canEncode(to: own) { return own }
        if image.isAnimated { return .gif }
        return image.hasAlpha ? .png : .jpeg
    }

    /// The image's original bytes when it has them, else the image encoded per ``format(for:coders:)``
    /// with its EXIF orientation applied to the pixels: the encoders write no orientation tag, so
    /// an image stored sideways (a JPEG thumbnail, say) would otherwise come back sideways.
    public static func data(for image: Image, coders: ImageCodersManager, options: ImageEncodeOptions) throws -> Data {
        if let original = image.originalData, !original.isEmpty { return original }
        let upright = image.orientation == .up ? image : image.transformingUprightFrames { $0 } ?? image
        return try coders.encode(upright, as: format(for: image, coders: coders), options: options)
    }
}
