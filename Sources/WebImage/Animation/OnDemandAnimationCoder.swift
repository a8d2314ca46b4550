import Foundation

/// Decodes animations to play on demand: an animated GIF, APNG or WebP becomes an ``Image``
/// holding its poster frame and an ``AnimatedImage`` (``Image/animatedImage``) that decodes the
/// other frames when a player asks — SDWebImage's `animatedImageClass` context option. Anything
/// else, stills included, goes to `base` unchanged.
///
/// Use it as a load's ``WebImageContext/imageCoder``; ``ImageBinding`` does so for an
/// ``AnimatedImageTarget``. Cached in memory at the bytes' cost plus one canvas and the poster,
/// where eager frames cost every frame.
public struct OnDemandAnimationCoder: ImageCoder {
    public let base: any ImageCoder

    public init(base: any ImageCoder = ImageCodersManager.shared) {
        self.base = base
    }

    public var coderKey: String? { base.coderKey.map { "OnDemandAnimation(\($0))" } }

    public func canDecode(_ data: Data) -> Bool { base.canDecode(data) }

    public func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        guard !options.decodeFirstFrameOnly, let animation = try AnimatedImage.onDemand(data, options: options) else {
            return try base.decode(data, options: options)
        }
        return Image(frames: [ImageFrame(bitmap: try animation.frame(at: 0))], loopCount: animation.loopCount,
                     scale: options.scaleFactor ?? 1, orientation: animation.orientation, format: animation.format,
                     originalData: data, hasAlpha: animation.hasAlpha, animatedImage: animation)
    }

    public func header(of data: Data) throws -> ImageHeader { try base.header(of: data) }

    public func canEncode(to format: ImageFormat) -> Bool { base.canEncode(to: format) }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        try base.encode(image, as: format, options: options)
    }

}
