/// Output sizes for thumbnail and scale-down decoding, with SDWebImage's rules
/// (`SDImageCoderHelper scaledSizeWithImageSize:...`).
public enum ThumbnailMath {
    /// `size` fitted into `box`: aspect kept (the longer relative side fills the box, the other
    /// rounded up) or stretched; never larger than `size` unless `allowUpscaling`; at least 1×1.
    public static func scaledSize(
        _ size: PixelSize, fitting box: PixelSize, preserveAspectRatio: Bool = true, allowUpscaling: Bool = false
    ) -> PixelSize {
        guard !size.isEmpty, !box.isEmpty else { return size }
        var width: Double
        var height: Double
        if preserveAspectRatio {
            let pixelRatio = Double(size.width) / Double(size.height)
            let boxRatio = Double(box.width) / Double(box.height)
            if pixelRatio > boxRatio {
                width = Double(box.width)
                height = (Double(box.width) / pixelRatio).rounded(.up)
            } else {
                height = Double(box.height)
                width = (Double(box.height) * pixelRatio).rounded(.up)
            }
        } else {
            width = Double(box.width)
            height = Double(box.height)
        }
        if !allowUpscaling {
            width = min(width, Double(size.width))
            height = min(height, Double(size.height))
        }
        return PixelSize(width: max(1, Int(width)), height: max(1, Int(height)))
    }

    /// The frame size whose RGBA8 bytes, times `frameCount`, fit in `limitBytes`: each side from
    /// sqrt(limit / frames / 4) with the aspect kept, floored, at least 1×1. Callers never upscale.
    public static func scaledSize(_ size: PixelSize, limitBytes: Int, frameCount: Int = 1, bytesPerPixel: Int = 4) -> PixelSize {
        guard !size.isEmpty else { return PixelSize(width: 1, height: 1) }
        let framePixels = Double(limitBytes) / Double(bytesPerPixel) / Double(max(1, frameCount))
        let ratio = Double(size.height) / Double(size.width)
        let width = (framePixels / ratio).squareRoot()
        let height = width * ratio
        return PixelSize(width: max(1, Int(width.rounded(.down))), height: max(1, Int(height.rounded(.down))))
    }
}
