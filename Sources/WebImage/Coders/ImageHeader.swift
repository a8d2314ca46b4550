import Foundation

/// What an encoded image's header says, read without decoding a pixel: enough to plan a decode
/// (the size to ask of a thumbnail decode, whether a limit is passed) before paying for it.
public struct ImageHeader: Sendable, Hashable {
    public var format: ImageFormat
    /// The size as stored, before ``orientation`` is applied (the logical screen of an animation).
    public var pixelSize: PixelSize
    public var orientation: ImageOrientation
    public var frameCount: Int

    public init(format: ImageFormat, pixelSize: PixelSize, orientation: ImageOrientation = .up, frameCount: Int = 1) {
        self.format = format
        self.pixelSize = pixelSize
        self.orientation = orientation
        self.frameCount = frameCount
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
        return ImageHeader(format: image.format, pixelSize: image.pixelSize, orientation: image.orientation)
    }
}

extension AnimatedImageCoder {
    /// Size and frame count from ``animationInfo(of:)``; formats with an EXIF orientation of
    /// their own add it.
    public func header(of data: Data) throws -> ImageHeader {
        let info = try animationInfo(of: data)
        return ImageHeader(format: ImageFormat.detect(data), pixelSize: info.canvasSize, frameCount: info.frameCount)
    }
}
