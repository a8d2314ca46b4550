import Testing
@testable import WebImage

@Suite("RoundCornerTransformer")
struct RoundCornerTransformerTests {
    private let red = TransformerFixtures.red
    private func round(_ radius: Double, _ corners: RectCorner = .allCorners, border: Double = 0, color: RGBA? = nil) throws -> Bitmap {
        let image = Image(bitmap: Fixtures.solid(red, width: 20, height: 20))
        return try #require(RoundCornerTransformer(cornerRadius: radius, corners: corners, borderWidth: border, borderColor: color)
            .transform(image, forKey: "k")).bitmap
    }

    @Test func cornersBecomeTransparentAndTheRestIsUntouched() throws {
        let out = try round(8)
        #expect(out.size == PixelSize(width: 20, height: 20))
        for (x, y) in [(0, 0), (19, 0), (0, 19), (19, 19), (1, 1)] { #expect(out[x, y].a == 0, "corner \(x),\(y)") }
        for (x, y) in [(10, 10), (10, 0), (0, 10), (19, 10), (8, 0), (0, 8)] { #expect(out[x, y] == red, "\(x),\(y)") }
        // The arc is antialiased: some pixels are partly covered, in the image's colour.
        let edge = (0..<8).flatMap { y in (0..<8).map { x in out[x, y] } }.filter { $0.a > 0 && $0.a < 255 }
        #expect(!edge.isEmpty && edge.allSatisfy { $0.r == 255 && $0.g == 0 })
    }

    @Test func onlyTheChosenCornersAreRounded() throws {
        let out = try round(8, [.topLeft, .bottomRight])
        #expect(out[0, 0].a == 0 && out[19, 19].a == 0)
        #expect(out[19, 0] == red && out[0, 19] == red)
    }

    @Test func theBorderIsABandInsideTheOutline() throws {
        let blue = TransformerFixtures.blue
        let out = try round(6, border: 2, color: blue)
        #expect(out[10, 0] == blue && out[10, 1] == blue && out[10, 2] == red)
        #expect(out[0, 10] == blue && out[19, 10] == blue && out[17, 10] == red)
        #expect(out[0, 0].a == 0 && out[10, 10] == red)
        // Without a colour the band is left transparent.
        let clear = try round(6, border: 2)
        #expect(clear[10, 0].a == 0 && clear[10, 1].a == 0 && clear[10, 2] == red)
    }

    @Test func aRadiusLargerThanHalfTheSideMakesACircle() throws {
        let out = try round(100)
        #expect(out[10, 10] == red && out[10, 0].a > 0 && out[2, 2].a == 0)
    }
}
