import Foundation
import Testing
@testable import WebImage

@Suite("PNGCoder", .onOwnThreads)
struct PNGCoderTests {
    let coder = PNGCoder()

    /// `*-expected.png` is what Pillow (or, for 16-bit, the high byte of each sample) gives.
    @Test("decodes every colour type and depth", arguments: [
        ("png-rgba", true), ("png-rgb", false), ("png-gray", false), ("png-gray-alpha", true),
        ("png-1bit", false), ("png-palette-trns", true), ("png-16bit", true), ("png-interlaced", true),
    ])
    func decodesLikeThePeer(name: String, hasAlpha: Bool) throws {
        let data = try Fixtures.data("\(name).png")
        let image = try coder.decode(data)
        let expected = try coder.decode(try Fixtures.data("\(name)-expected.png")).bitmap
        #expect(image.format == .png)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(image.hasAlpha == hasAlpha)
        #expect(image.originalData == data)
        #expect(image.bitmap == expected)
    }

    @Test func encodeDecodeIsLossless() throws {
        let card = Fixtures.testCard(width: 40, height: 30, alpha: true)
        let data = try coder.encode(Image(bitmap: card))
        #expect(ImageFormat.detect(data) == .png)
        #expect(try coder.decode(data).bitmap == card)
    }

    @Test func opaqueImagesAreWrittenAsRGB() throws {
        let card = Fixtures.testCard(width: 40, height: 30)
        let data = try coder.encode(Image(bitmap: card))
        #expect(data[25] == 2, "IHDR colour type 2 (RGB)")
        let decoded = try coder.decode(data)
        #expect(decoded.hasAlpha == false)
        #expect(decoded.bitmap == card)
    }

    @Test func thumbnailKeepsAspectAndNeverUpscales() throws {
        let data = try coder.encode(Image(bitmap: Fixtures.testCard(width: 400, height: 100, alpha: true)))
        let fit = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(fit.pixelSize == PixelSize(width: 64, height: 16))
        #expect(fit.originalData == nil)
        let stretched = try coder.decode(
            data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64), preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 64, height: 64))
        let big = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 4000, height: 4000)))
        #expect(big.pixelSize == PixelSize(width: 400, height: 100))
    }

    @Test func aDecompressionBombIsRefusedFromItsHeader() throws {
        // IHDR says 50,000 × 50,000 (2.5 GP, 10 GB of RGBA); the data behind it is tiny.
        let bomb = PNGChunks.png(width: 50_000, height: 50_000, idat: Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]))
        #expect(throws: ImageCoderError.tooLarge(width: 50_000, height: 50_000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(bomb)
        }
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 100)) {
            try coder.decode(try Fixtures.data("png-rgba.png"), options: ImageDecodeOptions(maxPixelCount: 100))
        }
    }

    @Test func truncatedDataIsATypedError() throws {
        let data = try Fixtures.data("png-16bit.png")
        #expect(throws: ImageCoderError.truncated(.png)) { try coder.decode(data.prefix(data.count / 2)) }
    }

    @Test func aBadChecksumIsCorrupt() throws {
        var data = try Fixtures.data("png-rgb.png")
        data[29] ^= 0xFF  // IHDR CRC
        #expect {
            try coder.decode(data)
        } throws: { error in
            guard case ImageCoderError.corrupt(.png, let reason) = error else { return false }
            return reason.contains("CRC")
        }
    }

    @Test func damagedInputNeverCrashes() throws {
        let data = try Fixtures.data("png-interlaced.png")
        for end in stride(from: 0, to: data.count, by: 11) {
            expectDecodesOrTypedError { try coder.decode(data.prefix(end)) }
        }
        var generator = SplitMix64(seed: 11)
        for _ in 0..<300 {
            var damaged = data
            let index = 8 + Int(generator.next() % UInt64(data.count - 8))
            damaged[index] = UInt8(truncatingIfNeeded: generator.next())
            expectDecodesOrTypedError { try coder.decode(damaged) }
        }
    }

    @Test func incrementalDecodingFillsRowsTopToBottom() throws {
        let card = Fixtures.testCard(width: 64, height: 256, alpha: false)
        let data = try PNGEncoding.encode(card, hasAlpha: false, compressionLevel: 0)  // stored: bytes ≈ rows
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(20), isFinal: false)
        #expect(try decoder.decodedImage() == nil, "nothing before the header")
        decoder.update(data.prefix(data.count / 2), isFinal: false)
        let half = try #require(try decoder.decodedImage())
        #expect(half.isIncremental)
        #expect(half.bitmap[10, 10] == card[10, 10])
        #expect(half.bitmap[10, 250].a == 0, "rows not received yet are transparent")
        decoder.update(data, isFinal: true)
        let final = try #require(try decoder.decodedImage())
        #expect(!final.isIncremental)
        #expect(final.bitmap == card)
    }

    @Test func incrementalInterlacedShowsTheWholeFrameEarly() throws {
        let data = try Fixtures.data("png-interlaced.png")
        let images = try feedInChunks(data, to: coder.makeIncrementalDecoder(options: .default), chunks: 6)
        #expect(images.dropLast().contains { $0 != nil })
        #expect(images.last??.bitmap == (try coder.decode(data)).bitmap)
    }
}

/// Builds minimal PNG streams for header tests.
enum PNGChunks {
    static func chunk(_ type: String, _ body: Data) -> Data {
        var out = Data()
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { out.append(contentsOf: $0) }
        let typed = Data(type.utf8) + body
        out.append(typed)
        withUnsafeBytes(of: crc32(typed).bigEndian) { out.append(contentsOf: $0) }
        return out
    }

    static func png(width: UInt32, height: UInt32, idat: Data) -> Data {
        var ihdr = Data()
        withUnsafeBytes(of: width.bigEndian) { ihdr.append(contentsOf: $0) }
        withUnsafeBytes(of: height.bigEndian) { ihdr.append(contentsOf: $0) }
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])  // 8-bit RGBA, no interlace
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + chunk("IHDR", ihdr) + chunk("IDAT", idat)
            + chunk("IEND", Data())
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }
}
