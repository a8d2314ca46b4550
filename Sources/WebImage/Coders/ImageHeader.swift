import Foundation

/// What an encoded image's header says, read without decoding a pixel: enough to plan a decode
/// (the size to ask of a thumbnail decode, whether a limit is passed) before paying for it.
public struct ImageHeader: Sendable, Hashable {
    public var format: ImageFormat
    /// The size as stored, before ``orientation`` is applied (the logical screen of an animation).
    public var pixelSize: PixelSize
    public var orientation: ImageOrientation
    public var frameCount: Int
    /// Whether the decoder keeps the whole image's coded data before it can emit a row: a
    /// progressive JPEG, or one whose components come in separate scans (libjpeg then holds every
    /// coefficient, 2 bytes each).
    public var isProgressive: Bool
    /// Adam7 PNG or an interlaced GIF frame.
    public var isInterlaced: Bool
    /// Bits per coded sample (8 for most images; 16-bit PNG, 10/12-bit AVIF and HEIF, 12-bit JPEG).
    public var bitDepth: Int
    /// Each coded plane's sampling factors, the largest being full size: JPEG's h×v per
    /// component, YUV 4:2:0 as [2×2, 1×1, 1×1]. Empty when the coder does not say.
    public var componentSampling: [PixelSize]
    /// Whether there is an alpha channel; `nil` when the header does not say.
    public var hasAlpha: Bool?
    /// Whether the pixels are coded losslessly (WebP VP8L decodes through a full-size ARGB
    /// buffer even for a scaled decode); `nil` when unknown.
    public var isLossless: Bool?
    /// Whether the file describes its colour in a way a conversion to sRGB may need (an ICC
    /// profile, PNG gAMA/cHRM, nclx); `nil` when unknown.
    public var hasColorProfile: Bool?
    /// How many encoded bytes the header came from: decoders may keep metadata copies up to it.
    public var dataSize: Int

    public init(
        format: ImageFormat, pixelSize: PixelSize, orientation: ImageOrientation = .up, frameCount: Int = 1,
        isProgressive: Bool = false, isInterlaced: Bool = false, bitDepth: Int = 8, componentSampling: [PixelSize] = [],
        hasAlpha: Bool? = nil, isLossless: Bool? = nil, hasColorProfile: Bool? = nil, dataSize: Int = 0
    ) {
        self.format = format
        self.pixelSize = pixelSize
        self.orientation = orientation
        self.frameCount = frameCount
        self.isProgressive = isProgressive
        self.isInterlaced = isInterlaced
        self.bitDepth = bitDepth
        self.componentSampling = componentSampling
        self.hasAlpha = hasAlpha
        self.isLossless = isLossless
        self.hasColorProfile = hasColorProfile
        self.dataSize = dataSize
    }

    /// The size as displayed: width and height swapped for a quarter-turn orientation.
    public var uprightSize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: pixelSize.height, height: pixelSize.width) : pixelSize
    }
}

extension ImageCoder {
    /// The header of `data`. This default decodes the first frame; the built-in coders read only
    /// their headers. Throws ``ImageCoderError``.
    public func header(of data: Data) throws -> ImageHeader {
        let image = try decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true, maxPixelCount: .max))
        return ImageHeader(format: image.format, pixelSize: image.pixelSize, orientation: image.orientation, dataSize: data.count)
    }
}

extension AnimatedImageCoder {
    /// Size and frame count from ``animationInfo(of:)``; formats with an EXIF orientation of
    /// their own add it.
    public func header(of data: Data) throws -> ImageHeader {
        let info = try animationInfo(of: data)
        return ImageHeader(format: ImageFormat.detect(data), pixelSize: info.canvasSize, frameCount: info.frameCount,
                           dataSize: data.count)
    }
}
