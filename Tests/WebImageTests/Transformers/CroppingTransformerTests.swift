import Testing
@testable import WebImage

@Suite("CroppingTransformer")
struct CroppingTransformerTests {
    private let image = Image(bitmap: TransformerFixtures.numbered(width: 4, height: 3))

    private func crop(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Bitmap? {
        CroppingTransformer(rect: PixelRect(x: x, y: y, width: w, height: h)).transform(image, forKey: "k")?.bitmap
    }

    @Test func cutsTheRectExactly() throws {
        let part = try #require(crop(1, 1, 2, 2))
        #expect(part.size == PixelSize(width: 2, height: 2))
        #expect(part[0, 0] == image.bitmap[1, 1] && part[1, 1] == image.bitmap[2, 2])
    }

    @Test func clampsARectThatSticksOut() throws {
        let corner = try #require(crop(-1, -1, 3, 3))
        #expect(corner.size == PixelSize(width: 2, height: 2) && corner[0, 0] == image.bitmap[0, 0])
        let edge = try #require(crop(3, 2, 10, 10))
        #expect(edge.size == PixelSize(width: 1, height: 1) && edge[0, 0] == image.bitmap[3, 2])
        #expect(try #require(crop(0, 0, 4, 3)) == image.bitmap)
    }

    @Test func aRectOutsideTheImageOrEmptyGivesNil() {
        #expect(crop(4, 0, 2, 2) == nil)
        #expect(crop(-5, -5, 5, 5) == nil)
        #expect(crop(1, 1, 0, 2) == nil)
    }
}
