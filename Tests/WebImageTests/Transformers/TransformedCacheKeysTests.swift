import Testing
@testable import WebImage

@Suite("Transformed cache keys (SDTransformedKeyForKey, SDThumbnailedKeyForKey)")
struct TransformedCacheKeysTests {
    @Test(arguments: [
        // URL with an extension: inserted into the path, the query stays after it.
        ("https://a/b.png?x=1", "https://a/b-Resize.png?x=1"),
        ("https://a/b.png#frag", "https://a/b-Resize.png#frag"),
        ("https://a/dir/b.tar.gz", "https://a/dir/b.tar-Resize.gz"),
        // No extension: appended to the whole key, query included.
        ("https://a/b?x=1", "https://a/b?x=1-Resize"),
        ("https://a/b.", "https://a/b.-Resize"),
        ("abc", "abc-Resize"),
        // File URLs and keys that are not URLs: before the key's own extension, nothing escaped.
        ("file:///tmp/a.png", "file:///tmp/a-Resize.png"),
        ("my photo.jpg", "my photo-Resize.jpg"),
    ])
    func insertsTheTransformerKeyBeforeTheExtension(key: String, expected: String) {
        #expect(TransformedCacheKeys.transformedKey(for: key, transformerKey: "Resize") == expected)
    }

    @Test func charactersAURLPathCannotHoldAreEscapedAsSDsURLComponentsDoes() {
        let key = TransformedCacheKeys.transformedKey(for: "https://a/b.png", transformerKey: "T({1,2})")
        #expect(key == "https://a/b-T(%7B1,2%7D).png")
        // Not a URL: verbatim.
        #expect(TransformedCacheKeys.transformedKey(for: "a b.png", transformerKey: "T({1,2})") == "a b-T({1,2}).png")
    }

    @Test func thumbnailKeysUseSDsFormat() {
        #expect(TransformedCacheKeys.thumbnailedKey(
            for: "https://a/b.png?s=1", pixelSize: PixelSize(width: 256, height: 128), preserveAspectRatio: true)
            == "https://a/b-Thumbnail(%7B256.000000,128.000000%7D,1).png?s=1")
        #expect(TransformedCacheKeys.thumbnailedKey(
            for: "key", pixelSize: PixelSize(width: 10, height: 20), preserveAspectRatio: false)
            == "key-Thumbnail({10.000000,20.000000},0)")
    }

    @Test func transformersAppendTheirOwnKey() {
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        #expect(flip.cacheKey(for: "https://a/b.png") == "https://a/b-FlippingTransformer(1,0).png")
    }

    @Test func everyTransformerKeyNamesItsParameters() {
        #expect(ResizingTransformer(size: PixelSize(width: 100, height: 50), scaleMode: .aspectFill).transformerKey
            == "ResizingTransformer({100.000000,50.000000},2)")
        #expect(CroppingTransformer(rect: PixelRect(x: 1, y: 2, width: 3, height: 4)).transformerKey
            == "CroppingTransformer({1.000000,2.000000,3.000000,4.000000})")
        #expect(RotationTransformer(angle: .pi / 4, fitSize: true).transformerKey == "RotationTransformer(0.785398,1)")
        #expect(RoundCornerTransformer(cornerRadius: 8, corners: [.topLeft, .bottomRight], borderWidth: 2,
                                       borderColor: RGBA(r: 255, g: 0, b: 16, a: 128)).transformerKey
            == "RoundCornerTransformer(8.000000,9,2.000000,#80ff0010)")
        #expect(RoundCornerTransformer(cornerRadius: 1).transformerKey == "RoundCornerTransformer(1.000000,15,0.000000,(null))")
        #expect(TintTransformer(color: RGBA(r: 0, g: 0, b: 255)).transformerKey == "TintTransformer(#ff0000ff,20)")
        #expect(BlurTransformer(radius: 2.5).transformerKey == "BlurTransformer(2.500000)")
    }
}
