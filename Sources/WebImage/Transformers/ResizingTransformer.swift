/// Scales images to a size, SDWebImage's `SDImageResizingTransformer`
/// (`sd_resizedImageWithSize:scaleMode:`).
///
/// The output is always exactly ``size``; ``scaleMode`` decides where the image is drawn in it:
/// - ``ScaleMode/fill``: stretched to the whole canvas (aspect not kept);
/// - ``ScaleMode/aspectFit``: as large as fits, centred, aspect kept; the rest of the canvas is
///   transparent (SD's renderer starts from a clear canvas the same way);
/// - ``ScaleMode/aspectFill``: as small as covers the canvas, centred, aspect kept; what sticks out
///   is cropped.
///
/// Differences from SD: ``size`` is in pixels (SD's is in points, times the image's scale); an
/// aspect-fit image is placed on whole pixels (SD's CoreGraphics blends a fractional edge row).
/// The image is drawn upright (EXIF orientation applied) and scaled with ``Bitmap/resampled(to:)``.
public struct ResizingTransformer: ImageTransformer, Hashable {
    /// How the image is drawn into the canvas; raw values are SD's `SDImageScaleMode`.
    public enum ScaleMode: Int, Sendable, Hashable {
        case fill = 0
        case aspectFit = 1
        case aspectFill = 2
    }

    public let size: PixelSize
    public let scaleMode: ScaleMode

    public init(size: PixelSize, scaleMode: ScaleMode = .fill) {
        self.size = size
        self.scaleMode = scaleMode
    }

    public var transformerKey: String {
        "ResizingTransformer({\(TransformedCacheKeys.format(Double(size.width))),"
            + "\(TransformedCacheKeys.format(Double(size.height)))},\(scaleMode.rawValue))"
    }

    /// Nil for an empty ``size``, as SD returns nil for a size that is not positive.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard !size.isEmpty else { return nil }
        return image.transformingUprightFrames { $0.resized(to: size, scaleMode: scaleMode) }
    }
}

extension Bitmap {
    /// This bitmap drawn into a `size` canvas with `scaleMode` (see ``ResizingTransformer``).
    public func resized(to size: PixelSize, scaleMode: ResizingTransformer.ScaleMode) -> Bitmap {
        precondition(!size.isEmpty, "resizing to an empty size")
        guard !self.size.isEmpty else { return Bitmap(width: size.width, height: size.height) }
        let sourceWidth = Double(width), sourceHeight = Double(height)
        let scaleX = Double(size.width) / sourceWidth, scaleY = Double(size.height) / sourceHeight
        switch scaleMode {
        case .fill:
            return resampled(to: size)
        case .aspectFill:
            // The centred part of the source that, scaled, covers the canvas exactly.
            let scale = max(scaleX, scaleY)
            let regionWidth = min(sourceWidth, Double(size.width) / scale)
            let regionHeight = min(sourceHeight, Double(size.height) / scale)
            let region = ResamplingRegion(
                x: (sourceWidth - regionWidth) / 2, y: (sourceHeight - regionHeight) / 2,
                width: regionWidth, height: regionHeight)
            return resampled(from: region, to: size)
        case .aspectFit:
            let scale = min(scaleX, scaleY)
            let fitted = PixelSize(
                width: min(size.width, max(1, Int((sourceWidth * scale).rounded()))),
                height: min(size.height, max(1, Int((sourceHeight * scale).rounded()))))
            let drawn = resampled(to: fitted)
            if fitted == size { return drawn }
            var canvas = Bitmap(width: size.width, height: size.height)
            canvas.paste(drawn, x: (size.width - fitted.width) / 2, y: (size.height - fitted.height) / 2)
            return canvas
        }
    }

    /// Copies `other` into this bitmap with its top-left corner at (x, y); it must fit.
    mutating func paste(_ other: Bitmap, x: Int, y: Int) {
        precondition(x >= 0 && y >= 0 && x + other.width <= width && y + other.height <= height, "paste out of bounds")
        let rowBytes = other.bytesPerRow, stride = bytesPerRow
        pixels.withUnsafeMutableBufferPointer { dst in
            other.pixels.withUnsafeBufferPointer { src in
                for row in 0..<other.height {
                    (dst.baseAddress! + (y + row) * stride + x * 4)
                        .update(from: src.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
        }
    }
}
