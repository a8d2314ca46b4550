import Testing
@testable import WebImage

@Suite("ResizingTransformer")
struct ResizingTransformerTests {
    private func resize(_ bitmap: Bitmap, _ w: Int, _ h: Int, _ mode: ResizingTransformer.ScaleMode) throws -> Bitmap {
        try #require(ResizingTransformer(size: PixelSize(width: w, height: h), scaleMode: mode)
            .transform(Image(bitmap: bitmap), forKey: "k")).bitmap
    }

    @Test func fillStretchesToTheSize() throws {
        let out = try resize(Fixtures.solid(TransformerFixtures.red, width: 40, height: 20), 10, 30, .fill)
        #expect(out == Fixtures.solid(TransformerFixtures.red, width: 10, height: 30))
    }

    @Test func aspectFitCentresTheImageOnATransparentCanvas() throws {
        let out = try resize(Fixtures.solid(TransformerFixtures.red, width: 40, height: 20), 20, 20, .aspectFit)
        #expect(out.size == PixelSize(width: 20, height: 20))
        for y in 0..<20 {
            let expected = (5..<15).contains(y) ? TransformerFixtures.red : TransformerFixtures.clear
            #expect((0..<20).allSatisfy { out[$0, y] == expected }, "row \(y)")
        }
        // Taller than the box: padding left and right.
        let tall = try resize(Fixtures.solid(TransformerFixtures.red, width: 10, height: 40), 20, 20, .aspectFit)
        // 5 columns wide at x = (20 − 5) / 2 = 7 (whole pixels: the odd one goes right).
        #expect(tall[6, 10] == TransformerFixtures.clear && tall[7, 10] == TransformerFixtures.red
            && tall[11, 10] == TransformerFixtures.red && tall[12, 10] == TransformerFixtures.clear)
    }

    @Test func aspectFillCoversTheCanvasWithTheCentre() throws {
        // Blue | red | blue in thirds of 10, 20, 10 columns: filling a square shows only the red middle.
        let source = TransformerFixtures.bitmap((0..<20).map { _ in
            (0..<40).map { x in (10..<30).contains(x) ? TransformerFixtures.red : TransformerFixtures.blue }
        })
        #expect(try resize(source, 20, 20, .aspectFill) == Fixtures.solid(TransformerFixtures.red, width: 20, height: 20))
        let small = try resize(source, 7, 5, .aspectFill)
        #expect(small.size == PixelSize(width: 7, height: 5))
        // Lanczos-3 at a 4x reduction reaches 12 source columns each side, so a trace of the blue
        // beyond the crop shows, as in Pillow's LANCZOS with the same box.
        #expect(small[3, 2] == RGBA(r: 253, g: 0, b: 2))
        #expect(!small.containsTransparency)
    }

    @Test func anEmptySizeGivesNil() {
        let image = Image(bitmap: Fixtures.solid(TransformerFixtures.red, width: 4, height: 4))
        #expect(ResizingTransformer(size: PixelSize(width: 0, height: 4)).transform(image, forKey: "k") == nil)
    }

    @Test func upscalingAndRegionsKeepAFlatColourExact() {
        let solid = Fixtures.solid(RGBA(r: 12, g: 200, b: 99, a: 128), width: 7, height: 5)
        for mode in [ResizingTransformer.ScaleMode.fill, .aspectFill] {
            let out = solid.resized(to: PixelSize(width: 23, height: 31), scaleMode: mode)
            #expect(out == Fixtures.solid(RGBA(r: 12, g: 200, b: 99, a: 128), width: 23, height: 31))
        }
    }
}
