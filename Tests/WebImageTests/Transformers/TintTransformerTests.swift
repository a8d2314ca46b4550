import Testing
@testable import WebImage

@Suite("TintTransformer")
struct TintTransformerTests {
    private let source = TransformerFixtures.bitmap([[
        RGBA(r: 200, g: 100, b: 0, a: 255), RGBA(r: 200, g: 100, b: 0, a: 128), RGBA(r: 0, g: 0, b: 0, a: 0),
    ]])

    private func tint(_ color: RGBA, _ mode: TintTransformer.BlendMode = .sourceAtop) throws -> [RGBA] {
        TransformerFixtures.rows(try #require(TintTransformer(color: color, blendMode: mode)
            .transform(Image(bitmap: source), forKey: "k")).bitmap)[0]
    }

    @Test func anOpaqueTintRecoloursTheShapeKeepingAlpha() throws {
        #expect(try tint(RGBA(r: 0, g: 0, b: 255)) == [
            RGBA(r: 0, g: 0, b: 255, a: 255), RGBA(r: 0, g: 0, b: 255, a: 128), RGBA(r: 0, g: 0, b: 0, a: 0),
        ])
    }

    @Test func aTranslucentTintMixesOverTheImage() throws {
        // Source-atop: colour = tint·Ta + image·(1 − Ta), alpha kept.
        let out = try tint(RGBA(r: 0, g: 0, b: 255, a: 51))  // 20 %
        #expect(out[0] == RGBA(r: 160, g: 80, b: 51, a: 255))
        #expect(out[1] == RGBA(r: 160, g: 80, b: 51, a: 128))
        #expect(out[2].a == 0)
    }

    @Test func sourceInTakesTheTintColourWithBothAlphas() throws {
        let out = try tint(RGBA(r: 0, g: 0, b: 255, a: 51), .sourceIn)
        #expect(out[0] == RGBA(r: 0, g: 0, b: 255, a: 51))
        #expect(out[1] == RGBA(r: 0, g: 0, b: 255, a: 26))
        #expect(out[2] == RGBA(r: 0, g: 0, b: 0, a: 0))
    }

    @Test func aClearTintChangesNothing() throws {
        let image = Image(bitmap: source)
        #expect(try #require(TintTransformer(color: RGBA(r: 9, g: 9, b: 9, a: 0)).transform(image, forKey: "k")) === image)
    }
}
