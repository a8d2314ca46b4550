import Foundation
import Testing
@testable import WebImage

@Suite("BlurTransformer", .onOwnThreads)
struct BlurTransformerTests {
    /// Opaque black with a white `size` × `size` square in the middle of a `side` × `side` image.
    private func spot(side: Int, size: Int) -> Bitmap {
        var bitmap = Fixtures.solid(RGBA(r: 0, g: 0, b: 0), width: side, height: side)
        bitmap.paste(Fixtures.solid(RGBA(r: 255, g: 255, b: 255), width: size, height: size), x: (side - size) / 2, y: (side - size) / 2)
        return bitmap
    }

    /// The exact Gaussian (σ, ±4σ taps, edges extended) of one channel, in doubles.
    private func referenceGaussian(_ bitmap: Bitmap, sigma: Double, channel: Int) -> [[Double]] {
        let r = Int((4 * sigma).rounded(.up))
        var kernel = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let w = bitmap.width, h = bitmap.height
        let value = { (x: Int, y: Int) in Double(bitmap.pixels[(y * w + x) * 4 + channel]) }
        let rows = (0..<h).map { y in (0..<w).map { x in
            (0..<kernel.count).reduce(0.0) { $0 + kernel[$1] * value(min(w - 1, max(0, x + $1 - r)), y) }
        } }
        return (0..<h).map { y in (0..<w).map { x in
            (0..<kernel.count).reduce(0.0) { $0 + kernel[$1] * rows[min(h - 1, max(0, y + $1 - r))][x] }
        } }
    }

    @Test(arguments: [1.5, 2.0, 4.0, 7.0])
    func aBrightSpotSpreadsSymmetricallyAndKeepsItsEnergy(sigma: Double) throws {
        let source = spot(side: 61, size: 5)
        let out = try #require(BlurTransformer(radius: sigma).transform(Image(bitmap: source), forKey: "k")).bitmap
        let c = 30
        for d in 1...12 {
            let right = out[c + d, c].r
            #expect(out[c - d, c].r == right && out[c, c + d].r == right && out[c, c - d].r == right, "offset \(d)")
            #expect(out[c + d, c].r <= out[c + d - 1, c].r, "falls off at \(d)")
        }
        #expect(out[c, c].r < 255)
        let energy = out.pixels.enumerated().reduce(0) { $0 + ($1.offset % 4 == 0 ? Int($1.element) : 0) }
        #expect(abs(Double(energy) / Double(25 * 255) - 1) < 0.02, "energy \(energy) vs \(25 * 255)")
        #expect(!out.containsTransparency)
    }

    @Test(arguments: [(2.0, 1), (3.0, 1), (5.0, 6), (12.0, 6)])
    func matchesAReferenceGaussian(sigma: Double, tolerance: Int) throws {
        let card = Fixtures.testCard(width: 160, height: 120)
        let out = card.blurred(radius: sigma)
        let reference = referenceGaussian(card, sigma: sigma, channel: 2)  // blue: the 8-px checker
        // Away from the edges: repeated box passes extend an already blurred edge, which a single
        // Gaussian does not, so the last 2σ differ more there (as in vImage's three-box blur).
        let margin = sigma > 3 ? Int(2 * sigma) : 0
        var worst = 0.0
        for y in margin..<(120 - margin) {
            for x in margin..<(160 - margin) { worst = max(worst, abs(Double(out[x, y].b) - reference[y][x])) }
        }
        // Small σ is an exact kernel (rounding only); large σ is three boxes, a few levels off.
        #expect(worst <= Double(tolerance), "σ \(sigma): worst difference \(worst)")
    }

    @Test func transparentPixelsDoNotBleedTheirColour() {
        // Opaque red on the left, transparent *green* on the right.
        let bitmap = TransformerFixtures.bitmap((0..<8).map { _ in
            (0..<16).map { $0 < 8 ? TransformerFixtures.red : RGBA(r: 0, g: 255, b: 0, a: 0) }
        })
        for sigma in [1.0, 4.0] {
            let out = bitmap.blurred(radius: sigma)
            for x in 0..<16 where out[x, 4].a > 0 {
                #expect(out[x, 4].g == 0 && out[x, 4].r == 255, "σ \(sigma), x \(x): \(out[x, 4])")
            }
            #expect(out[7, 4].a < 255 && out[8, 4].a > 0)
        }
    }

    @Test func aNegligibleRadiusReturnsTheImage() throws {
        let image = Image(bitmap: spot(side: 9, size: 1))
        #expect(try #require(BlurTransformer(radius: 0).transform(image, forKey: "k")) === image)
    }

    @Test func boxWidthsAddUpToTheVariance() {
        for sigma in [3.5, 5.0, 12.0, 40.0] {
            let widths = Bitmap.boxWidths(sigma: sigma, count: 3)
            #expect(widths.allSatisfy { $0 % 2 == 1 })
            let variance = widths.reduce(0.0) { $0 + Double($1 * $1 - 1) / 12 }
            #expect(abs(variance.squareRoot() - sigma) / sigma < 0.06, "σ \(sigma): \(widths)")
        }
    }
}
