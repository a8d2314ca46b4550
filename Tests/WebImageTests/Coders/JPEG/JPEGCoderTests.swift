import Foundation
import Testing
@testable import WebImage

@Suite("JPEGCoder", .onOwnThreads)
struct JPEGCoderTests {
    let coder = JPEGCoder()

    /// Pillow decodes each fixture with the same libjpeg-turbo; `*-expected.png` is its output.
    @Test("decodes like Pillow", arguments: [
        ("jpeg-baseline", 0), ("jpeg-progressive", 0), ("jpeg-gray", 0), ("jpeg-orientation6", 0),
        ("jpeg-cmyk", 1),  // CMYK → RGB rounding differs by at most one step
    ])
    func matchesPillow(name: String, tolerance: Int) throws {
        let data = try Fixtures.data("\(name).jpg")
        let image = try coder.decode(data)
        let expected = try PNGCoder().decode(try Fixtures.data("\(name)-expected.png")).bitmap
        #expect(image.format == .jpeg)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(image.hasAlpha == false)
        #expect(image.frames.count == 1)
        #expect(image.originalData == data)
        #expect(maxChannelDifference(image.bitmap, expected) <= tolerance)
    }

    @Test func readsEXIFOrientationWithoutRotatingPixels() throws {
        let image = try coder.decode(try Fixtures.data("jpeg-orientation6.jpg"))
        #expect(image.orientation == .right)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(try coder.decode(try Fixtures.data("jpeg-baseline.jpg")).orientation == .up)
    }

    @Test func thumbnailUsesDCTScalingThenResamples() throws {
        let large = try coder.encode(
            Image(bitmap: Fixtures.testCard(width: 1600, height: 1200, checker: false)), options: .init(quality: 0.95))
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let thumbnail = try coder.decode(large, options: options)
        #expect(thumbnail.pixelSize == PixelSize(width: 256, height: 192))
        #expect(thumbnail.originalData == nil, "a thumbnail is not the original file's pixels")
        let reference = try coder.decode(large).bitmap.resampled(to: thumbnail.pixelSize)
        #expect(meanChannelDifference(thumbnail.bitmap, reference) < 1.5)
    }

    @Test("DCT scale is the smallest M/8 that still covers the target", arguments: [
        (PixelSize(width: 4928, height: 3264), PixelSize(width: 256, height: 170), 1),
        (PixelSize(width: 100, height: 100), PixelSize(width: 60, height: 60), 5),
        (PixelSize(width: 1600, height: 1200), PixelSize(width: 800, height: 600), 4),
        (PixelSize(width: 1600, height: 1200), PixelSize(width: 1599, height: 1199), 8),
    ])
    func dctScale(source: PixelSize, target: PixelSize, expected: Int) {
        #expect(JPEGDecoding.dctScaleNumerator(from: source, to: target) == expected)
    }

    @Test func thumbnailNeverUpscales() throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 1000, height: 1000))
        let image = try coder.decode(try Fixtures.data("jpeg-baseline.jpg"), options: options)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
    }

    @Test func scaleDownLimitBytesFollowsSDRule() throws {
        let large = try coder.encode(Image(bitmap: Fixtures.testCard(width: 1600, height: 1200)))
        // 1,920,000 bytes = 480,000 RGBA pixels at 4:3 → 800×600.
        let image = try coder.decode(large, options: ImageDecodeOptions(scaleDownLimitBytes: 1_920_000))
        #expect(image.pixelSize == PixelSize(width: 800, height: 600))
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        let small = try Fixtures.data("jpeg-baseline.jpg")
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 1000)) {
            try coder.decode(small, options: ImageDecodeOptions(maxPixelCount: 1000))
        }
        // A header declaring 60000×60000 is refused before any pixel memory exists.
        var bomb = small
        let sof = try #require(bomb.firstRange(of: Data([0xFF, 0xC0])))
        let at = sof.lowerBound + 5
        bomb.replaceSubrange(at..<(at + 4), with: [0xEA, 0x60, 0xEA, 0x60])
        #expect(throws: ImageCoderError.tooLarge(width: 60000, height: 60000, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(bomb)
        }
    }

    @Test func truncatedDataIsATypedError() throws {
        let data = try Fixtures.data("jpeg-baseline.jpg")
        #expect(throws: ImageCoderError.truncated(.jpeg)) {
            try coder.decode(data.prefix(data.count * 6 / 10))
        }
    }

    @Test func garbageAfterTheMagicIsCorrupt() throws {
        var garbage = Data([0xFF, 0xD8, 0xFF, 0xE0])
        garbage.append(contentsOf: (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        #expect {
            try coder.decode(garbage)
        } throws: { error in
            guard case ImageCoderError.corrupt(.jpeg, _) = error else { return false }
            return true
        }
    }

    /// Every prefix and a spread of single-byte corruptions either decode or throw an
    /// ImageCoderError — never crash, never exit (libjpeg's default error handler would).
    @Test func damagedInputNeverCrashes() throws {
        let data = try Fixtures.data("jpeg-progressive.jpg")
        for end in stride(from: 0, to: data.count, by: 3) {
            expectDecodesOrTypedError { try coder.decode(data.prefix(end)) }
        }
        var generator = SplitMix64(seed: 7)
        for _ in 0..<300 {
            var damaged = data
            let index = Int(generator.next() % UInt64(data.count))
            damaged[index] = UInt8(truncatingIfNeeded: generator.next())
            expectDecodesOrTypedError { try coder.decode(damaged) }
        }
    }

    @Test func encodesWithQuality() throws {
        let card = Fixtures.testCard(width: 64, height: 48)
        let high = try coder.encode(Image(bitmap: card), options: .init(quality: 0.95))
        let low = try coder.encode(Image(bitmap: card), options: .init(quality: 0.2))
        #expect(ImageFormat.detect(high) == .jpeg)
        #expect(low.count < high.count)
        let highError = meanChannelDifference(try coder.decode(high).bitmap, card)
        let lowError = meanChannelDifference(try coder.decode(low).bitmap, card)
        #expect(highError < lowError)
        #expect(highError < 6, "the hard-edged blue checker costs a little under 4:2:0 chroma")
    }

    @Test func progressiveEncodingWritesSOF2() throws {
        let data = try coder.encode(Image(bitmap: Fixtures.testCard(width: 64, height: 48)), options: .init(progressive: true))
        #expect(data.firstRange(of: Data([0xFF, 0xC2])) != nil)
    }

    @Test func transparentPixelsAreFlattenedOverWhite() throws {
        let clear = Image(bitmap: Fixtures.solid(RGBA(r: 0, g: 0, b: 0, a: 0), width: 16, height: 16))
        let decoded = try coder.decode(try coder.encode(clear))
        #expect(decoded.bitmap[8, 8].r > 250)
    }

    @Test func incrementalDecodingSharpensScanByScan() throws {
        let full = try coder.encode(
            Image(bitmap: Fixtures.testCard(width: 256, height: 192)), options: .init(quality: 0.9, progressive: true))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        let images = try feedInChunks(full, to: decoder, chunks: 10)
        let partials = images.dropLast().compactMap { $0 }
        #expect(!partials.isEmpty, "a progressive JPEG shows something before it completes")
        #expect(partials.allSatisfy { $0.isIncremental && $0.pixelSize == PixelSize(width: 256, height: 192) })
        let final = try #require(images.last ?? nil)
        #expect(!final.isIncremental)
        #expect(final.bitmap == (try coder.decode(full)).bitmap)
        // Later partials are closer to the final image than earlier ones.
        let errors = partials.map { meanChannelDifference($0.bitmap, final.bitmap) }
        #expect(errors.last! <= errors.first!)
    }

    @Test func incrementalBaselineShowsRowsBeforeTheEnd() throws {
        let full = try coder.encode(Image(bitmap: Fixtures.testCard(width: 128, height: 512)))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(full.prefix(300), isFinal: false)
        #expect(try decoder.decodedImage() == nil, "no image before the first scan starts")
        decoder.update(full.prefix(full.count / 2), isFinal: false)
        let partial = try #require(try decoder.decodedImage())
        let reference = try coder.decode(full).bitmap
        // The top rows are already right.
        let topRow = Bitmap(width: 128, height: 1, pixels: Array(partial.bitmap.pixels.prefix(128 * 4)))
        let referenceTop = Bitmap(width: 128, height: 1, pixels: Array(reference.pixels.prefix(128 * 4)))
        #expect(maxChannelDifference(topRow, referenceTop) == 0)
        decoder.update(full.prefix(full.count - 10), isFinal: true)
        #expect(throws: ImageCoderError.truncated(.jpeg)) { try decoder.decodedImage() }
    }
}

/// Runs `body`, expecting an image or an ``ImageCoderError``, nothing else.
func expectDecodesOrTypedError(_ body: () throws -> Image, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let image = try body()
        #expect(image.width > 0 && image.height > 0, sourceLocation: sourceLocation)
    } catch is ImageCoderError {
    } catch {
        Issue.record("untyped error \(error)", sourceLocation: sourceLocation)
    }
}

/// A tiny deterministic generator so damage tests are repeatable.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
