import Foundation
import Testing
@testable import WebImage

@Suite("FlippingTransformer and orientation")
struct FlippingTransformerTests {
    private let card = TransformerFixtures.numbered(width: 3, height: 2)

    private func rows(_ bitmap: Bitmap) -> [[UInt8]] {
        // (red, green) / 10 packed as 10·x + y, to read the layout at a glance.
        TransformerFixtures.rows(bitmap).map { $0.map { $0.r + $0.g / 10 } }
    }

    @Test func flipsA3x2BitmapExactly() {
        #expect(rows(card) == [[0, 10, 20], [1, 11, 21]])
        #expect(rows(card.flipped(horizontally: true, vertically: false)) == [[20, 10, 0], [21, 11, 1]])
        #expect(rows(card.flipped(horizontally: false, vertically: true)) == [[1, 11, 21], [0, 10, 20]])
        #expect(rows(card.flipped(horizontally: true, vertically: true)) == [[21, 11, 1], [20, 10, 0]])
        #expect(card.flipped(horizontally: false, vertically: false) == card)
    }

    @Test func everyEXIFOrientationTurnsThePixelsUpright() {
        #expect(rows(card.oriented(.up)) == [[0, 10, 20], [1, 11, 21]])
        #expect(rows(card.oriented(.right)) == [[1, 0], [11, 10], [21, 20]])  // 90° clockwise
        #expect(rows(card.oriented(.left)) == [[20, 21], [10, 11], [0, 1]])  // 90° counterclockwise
        #expect(rows(card.oriented(.leftMirrored)) == [[0, 1], [10, 11], [20, 21]])  // transpose
        #expect(rows(card.oriented(.rightMirrored)) == [[21, 20], [11, 10], [1, 0]])  // transverse
        #expect(card.oriented(.down) == card.flipped(horizontally: true, vertically: true))
    }

    @Test func transformerKeepsMetadataAndDropsOriginalData() throws {
        let image = Image(bitmap: card, scale: 2, format: .png, originalData: Data([1, 2, 3]))
        let flipped = try #require(FlippingTransformer(horizontal: true, vertical: false).transform(image, forKey: "k"))
        #expect(rows(flipped.bitmap) == [[20, 10, 0], [21, 11, 1]])
        #expect(flipped.scale == 2 && flipped.format == .png && flipped.originalData == nil)
    }

    @Test func geometryWorksOnTheUprightImage() throws {
        // Stored 3×2 with EXIF "right": displayed 2×3. The flip mirrors what is displayed.
        let image = Image(bitmap: card, orientation: .right)
        let flipped = try #require(FlippingTransformer(horizontal: true, vertical: false).transform(image, forKey: "k"))
        #expect(flipped.orientation == .up)
        #expect(rows(flipped.bitmap) == [[0, 1], [10, 11], [20, 21]])
    }
}
