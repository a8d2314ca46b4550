import Testing
@testable import WebImage

@Suite("PipelineTransformer")
struct PipelineTransformerTests {
    private struct Failing: ImageTransformer {
        var transformerKey: String { "Failing" }
        func transform(_ image: Image, forKey key: String) -> Image? { nil }
    }

    @Test func keyJoinsTheMembersKeysInOrder() {
        let pipeline = PipelineTransformer([
            FlippingTransformer(horizontal: true, vertical: false), RotationTransformer(angle: .pi / 4, fitSize: true),
        ])
        #expect(pipeline.transformerKey == "FlippingTransformer(1,0)-RotationTransformer(0.785398,1)")
        #expect(pipeline.cacheKey(for: "https://a/image.png")
            == "https://a/image-FlippingTransformer(1,0)-RotationTransformer(0.785398,1).png")
        #expect(PipelineTransformer([]).transformerKey == "")
    }

    @Test func appliesTheMembersInOrder() throws {
        let image = Image(bitmap: TransformerFixtures.numbered(width: 4, height: 1))
        let crop = CroppingTransformer(rect: PixelRect(x: 0, y: 0, width: 2, height: 1))
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        let cropThenFlip = try #require(PipelineTransformer([crop, flip]).transform(image, forKey: "k"))
        let flipThenCrop = try #require(PipelineTransformer([flip, crop]).transform(image, forKey: "k"))
        #expect(cropThenFlip.bitmap[0, 0].r == 10 && cropThenFlip.bitmap[1, 0].r == 0)
        #expect(flipThenCrop.bitmap[0, 0].r == 30 && flipThenCrop.bitmap[1, 0].r == 20)
    }

    @Test func stopsAtTheFirstNil() {
        let image = Image(bitmap: TransformerFixtures.numbered(width: 2, height: 2))
        let pipeline = PipelineTransformer([Failing(), FlippingTransformer(horizontal: true, vertical: true)])
        #expect(pipeline.transform(image, forKey: "k") == nil)
    }

    @Test func anEmptyPipelineReturnsTheImage() throws {
        let image = Image(bitmap: TransformerFixtures.numbered(width: 2, height: 2))
        #expect(try #require(PipelineTransformer([]).transform(image, forKey: "k")) === image)
    }
}
