extension Bitmap {
    /// The part of this bitmap's scaled copy that a `scaledSize` copy would show in `visible` (in
    /// the scaled copy's pixels), made without the rest of the scaled copy: a watermark scaled past
    /// its image only costs what shows. Same filter as ``resampled(to:)``; nil when `visible` is
    /// empty or outside the scaled copy.
    public func resampledPart(scaledTo scaledSize: PixelSize, visible: PixelRect) -> Bitmap? {
        guard !size.isEmpty, !scaledSize.isEmpty, visible.width > 0, visible.height > 0, visible.x >= 0, visible.y >= 0,
              visible.x + visible.width <= scaledSize.width, visible.y + visible.height <= scaledSize.height
        else { return nil }
        if visible == PixelRect(x: 0, y: 0, width: scaledSize.width, height: scaledSize.height) { return resampled(to: scaledSize) }
        let sx = Double(width) / Double(scaledSize.width), sy = Double(height) / Double(scaledSize.height)
        let region = ResamplingRegion(x: Double(visible.x) * sx, y: Double(visible.y) * sy,
                                      width: Double(visible.width) * sx, height: Double(visible.height) * sy)
        return resampled(from: region, to: PixelSize(width: visible.width, height: visible.height))
    }
}
