import Foundation

/// Gaussian blur, SDWebImage's `SDImageBlurTransformer` (`sd_blurredImageWithRadius:`).
///
/// ``radius`` is the Gaussian's standard deviation in pixels (SD's "radius (aka standard
/// deviation)"). Edges extend the border pixels (vImage's `kvImageEdgeExtend`, as SD uses), so the
/// image does not darken at its sides. Colour is blurred premultiplied, so transparent pixels do not
/// tint their neighbours. Works on stored pixels, so the orientation is kept.
///
/// How: up to σ = 3 an exact separable Gaussian kernel (±3σ); above it, three box blurs per axis
/// whose widths are chosen so their variances add up to σ² (W3C/Kovesi), which costs the same at
/// any radius and stays within a few percent of the true Gaussian. SD uses the same three-box
/// scheme for every radius (and treats σ < 2 as 2); WebImage keeps small radii exact instead.
public struct BlurTransformer: ImageTransformer, Hashable {
    public let radius: Double

    public init(radius: Double) {
        self.radius = radius
    }

    public var transformerKey: String {
        "BlurTransformer(\(TransformedCacheKeys.format(radius)))"
    }

    /// A radius too small to change a pixel returns the image unchanged, as SD does.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard radius.isFinite else { return nil }
        guard radius > BlurTransformer.negligibleRadius else { return image }
        return image.transformingFrames { $0.blurred(radius: radius) }
    }

    /// Below this σ every neighbour's weight rounds away (SD compares with FLT_EPSILON).
    static let negligibleRadius = 0.1
}

extension Bitmap {
    /// This bitmap blurred with a Gaussian of standard deviation `radius` pixels (see ``BlurTransformer``).
    public func blurred(radius: Double) -> Bitmap {
        guard radius > BlurTransformer.negligibleRadius, !size.isEmpty else { return self }
        var plane = PremultipliedPlane(self)
        if radius <= 3 {
            let kernel = Bitmap.gaussianKernel(sigma: radius)
            plane.convolveRows(kernel)
            plane.convolveColumns(kernel)
        } else {
            for box in Bitmap.boxWidths(sigma: radius, count: 3) {
                plane.convolveRows(box: box / 2)
            }
            for box in Bitmap.boxWidths(sigma: radius, count: 3) {
                plane.convolveColumns(box: box / 2)
            }
        }
        return plane.bitmap()
    }

    /// Normalised Gaussian weights for offsets −r...r, r = ⌈3σ⌉.
    static func gaussianKernel(sigma: Double) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        let weights = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        return weights.map { Float($0 / total) }
    }

    /// Odd box widths, `count` of them, whose variances ((w² − 1) / 12 each) sum as close to σ² as
    /// odd widths allow: the smaller width `m` times, the next odd width for the rest.
    static func boxWidths(sigma: Double, count n: Int) -> [Int] {
        let n = Double(n)
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let l = Double(lower)
        let m = Int(((12 * sigma * sigma - n * l * l - 4 * n * l - 3 * n) / (-4 * l - 4)).rounded())
        return (0..<Int(n)).map { $0 < m ? lower : lower + 2 }
    }
}
