/// Cuts a rectangle out of images, SDWebImage's `SDImageCroppingTransformer` (`sd_croppedImageWithRect:`).
///
/// ``rect`` is in pixels of the upright image (EXIF orientation applied) and is clamped to the
/// image, as CoreGraphics' `CGImageCreateWithImageInRect` clips it; a rect that misses the image
/// entirely, or is empty, gives nil.
public struct CroppingTransformer: ImageTransformer, Hashable {
    public let rect: PixelRect

    public init(rect: PixelRect) {
        self.rect = rect
    }

    public var transformerKey: String {
        let f = TransformedCacheKeys.format
        return "CroppingTransformer({\(f(Double(rect.x))),\(f(Double(rect.y))),\(f(Double(rect.width))),\(f(Double(rect.height)))})"
    }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard !rect.isEmpty else { return nil }
        return image.transformingUprightFrames { $0.cropped(to: rect) }
    }
}

/// A rectangle in pixels: origin at the top-left, y down.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "(\(x),\(y) \(width)x\(height))" }

    /// The part of this rect inside `other`; nil when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

extension Bitmap {
    /// The pixels inside `rect`, clamped to this bitmap; nil when nothing of it is inside.
    public func cropped(to rect: PixelRect) -> Bitmap? {
        guard let clamped = rect.intersection(PixelRect(x: 0, y: 0, width: width, height: height)) else { return nil }
        if clamped.width == width && clamped.height == height { return self }
        let rowBytes = clamped.width * 4
        return Bitmap(width: clamped.width, height: clamped.height) { out in
            pixels.withUnsafeBufferPointer { src in
                for row in 0..<clamped.height {
                    (out.baseAddress! + row * rowBytes)
                        .update(from: src.baseAddress! + (clamped.y + row) * bytesPerRow + clamped.x * 4, count: rowBytes)
                }
            }
        }
    }
}
