import Testing
@testable import WebImage

@Suite("RotationTransformer")
struct RotationTransformerTests {
    private let card = TransformerFixtures.numbered(width: 3, height: 2)

    private func rotate(_ bitmap: Bitmap, _ angle: Double, fit: Bool) throws -> Bitmap {
        try #require(RotationTransformer(angle: angle, fitSize: fit).transform(Image(bitmap: bitmap), forKey: "k")).bitmap
    }

    @Test func aQuarterTurnIsExactAndCounterclockwise() throws {
        let turned = try rotate(card, .pi / 2, fit: true)
        #expect(turned.size == PixelSize(width: 2, height: 3))
        // Counterclockwise on screen: the right column comes to the top.
        #expect(turned == card.oriented(.left))
        #expect(try rotate(card, -.pi / 2, fit: true) == card.oriented(.right))
        #expect(try rotate(card, .pi, fit: false) == card.flipped(horizontally: true, vertically: true))
        #expect(try rotate(card, 2 * .pi, fit: true) == card)
    }

    @Test func fitSizeGrowsTheCanvasToTheRotatedBounds() throws {
        let square = Fixtures.solid(TransformerFixtures.red, width: 10, height: 10)
        let fitted = try rotate(square, .pi / 4, fit: true)
        #expect(fitted.size == PixelSize(width: 15, height: 15))  // ⌈10·√2⌉
        #expect(fitted[0, 0].a == 0 && fitted[14, 14].a == 0)  // corners of the canvas: uncovered
        #expect(fitted[7, 7] == TransformerFixtures.red)
        #expect(fitted[7, 0].a > 0 && fitted[7, 0].a < 255)  // the tip: antialiased, not jagged
        #expect(Bitmap.rotatedSize(PixelSize(width: 40, height: 20), angle: .pi / 6, fitSize: true)
            == PixelSize(width: 45, height: 38))  // 40·cos30 + 20·sin30 = 44.6, 40·sin30 + 20·cos30 = 37.3
    }

    @Test func withoutFitSizeTheCanvasKeepsTheImageSize() throws {
        let square = Fixtures.solid(TransformerFixtures.red, width: 10, height: 10)
        let rotated = try rotate(square, .pi / 4, fit: false)
        #expect(rotated.size == square.size)
        #expect(rotated[0, 0].a == 0 && rotated[5, 5] == TransformerFixtures.red)
    }

    @Test func transparentNeighboursDoNotTintTheEdges() throws {
        // Transparent *green* around opaque red: every visible pixel stays pure red.
        var bitmap = Fixtures.solid(RGBA(r: 0, g: 255, b: 0, a: 0), width: 12, height: 12)
        bitmap.paste(Fixtures.solid(TransformerFixtures.red, width: 6, height: 6), x: 3, y: 3)
        let rotated = try rotate(bitmap, 0.3, fit: true)
        for y in 0..<rotated.height {
            for x in 0..<rotated.width where rotated[x, y].a > 0 {
                #expect(rotated[x, y].r == 255 && rotated[x, y].g == 0, "pixel \(x),\(y): \(rotated[x, y])")
            }
        }
    }
}
