/// Mirrors images, SDWebImage's `SDImageFlippingTransformer` (`sd_flippedImageWithHorizontal:vertical:`).
/// Exact: pixels move, none is resampled. Works on the upright image (EXIF orientation applied).
public struct FlippingTransformer: ImageTransformer, Hashable {
    /// Left and right swap.
    public let horizontal: Bool
    /// Top and bottom swap.
    public let vertical: Bool

    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var transformerKey: String {
        "FlippingTransformer(\(horizontal ? 1 : 0),\(vertical ? 1 : 0))"
    }

    public func transform(_ image: Image, forKey key: String) -> Image? {
        image.transformingUprightFrames { $0.flipped(horizontally: horizontal, vertically: vertical) }
    }
}
