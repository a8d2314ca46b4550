import Foundation
import Testing
@testable import WebImage

/// The PNG writer picks its compression by content: run-length matching for photographs, the
/// full LZ77 search for graphics, and nothing changes the pixels.
@Suite("PNG encoding")
struct PNGEncodingTests {
    /// Noise: Paeth's prediction almost never hits, as in a resampled photograph.
    static func photograph(width: Int, height: Int, alpha: Bool) -> Bitmap {
        var generator = SplitMix64(seed: 39)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in pixels.indices where alpha || i % 4 != 3 {
            pixels[i] = UInt8(truncatingIfNeeded: generator.next())
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// The FLEVEL bits of the zlib header opening the first IDAT: 0 for run-length matching (and
    /// levels 0–1), 2 for level 6's default strategy.
    static func compressionFlag(_ png: Data) throws -> UInt8 {
        let idat = try #require(png.range(of: Data("IDAT".utf8)))
        return png[idat.upperBound + 1] >> 6
    }

    @Test("a photograph is written with run-length matching and decodes to the same pixels", arguments: [false, true])
    func photographsRunLength(alpha: Bool) throws {
        let photo = Self.photograph(width: 96, height: 64, alpha: alpha)
        let data = try PNGEncoding.encode(photo, hasAlpha: alpha, compressionLevel: 6)
        #expect(try Self.compressionFlag(data) == 0)
        #expect(try PNGCoder().decode(data).bitmap == photo)
    }

    @Test("graphics keep level 6's full search")
    func graphicsSearch() throws {
        let card = Fixtures.testCard(width: 96, height: 64)
        let data = try PNGEncoding.encode(card, hasAlpha: false, compressionLevel: 6)
        #expect(try Self.compressionFlag(data) == 2)
        #expect(try PNGCoder().decode(data).bitmap == card)
    }

    @Test("level 0 stores a photograph uncompressed")
    func levelZeroStores() throws {
        let photo = Self.photograph(width: 96, height: 64, alpha: false)
        let data = try PNGEncoding.encode(photo, hasAlpha: false, compressionLevel: 0)
        #expect(data.count > 96 * 64 * 3, "stored blocks hold every filtered row")
        #expect(try PNGCoder().decode(data).bitmap == photo)
    }

    @Test("a one-pixel-wide or one-row image is written whole")
    func degenerateSizes() throws {
        for (width, height) in [(1, 40), (40, 1), (1, 1)] {
            let photo = Self.photograph(width: width, height: height, alpha: true)
            let data = try PNGEncoding.encode(photo, hasAlpha: true, compressionLevel: 6)
            #expect(try PNGCoder().decode(data).bitmap == photo)
        }
    }
}
