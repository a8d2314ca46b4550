import Foundation
import Testing
@testable import WebImage

/// The `webp-*.webp` fixtures are written by Pillow with its own bundled libwebp: the 48×32 test
/// card (``Fixtures/testCard(width:height:alpha:)``) as lossy, lossless and lossy + alpha, the
/// same card with EXIF orientation 6, and a 3-frame lossless animation on a 32×24 canvas (red;
/// red with a blue 8×8 square at (8, 8); half-transparent green) lasting 100, 250 and 10 ms,
/// looping 3 times.
@Suite("WebPCoder", .onOwnThreads)
struct WebPCoderTests {
    let coder = WebPCoder()

    // MARK: Still images

    @Test func decodesLossyLikePillow() throws {
        let data = try Fixtures.data("webp-lossy.webp")
        let image = try coder.decode(data)
        #expect(image.format == .webp)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(image.frames.count == 1)
        #expect(image.hasAlpha == false)
        #expect(image.originalData == data)
        #expect(image.orientation == .up)
        // Pixels Pillow decodes from the same file (libwebp 1.6; the decoder here may be older).
        let pillow: [(x: Int, y: Int, RGBA)] = [
            (0, 0, RGBA(r: 3, g: 0, b: 199)), (47, 0, RGBA(r: 250, g: 3, b: 34)),
            (20, 10, RGBA(r: 108, g: 80, b: 39)), (47, 31, RGBA(r: 254, g: 255, b: 205)),
            (5, 25, RGBA(r: 26, g: 204, b: 37)),
        ]
        for (x, y, expected) in pillow {
            #expect(distance(image.bitmap[x, y], expected) <= 2, "pixel (\(x), \(y))")
        }
        #expect(meanChannelDifference(image.bitmap, Fixtures.testCard(width: 48, height: 32)) < 6)
    }

    @Test func decodesLosslessExactly() throws {
        let data = try Fixtures.data("webp-lossless.webp")
        let image = try coder.decode(data)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(image.hasAlpha)
        #expect(image.bitmap == Fixtures.testCard(width: 48, height: 32, alpha: true))
    }

    @Test func decodesLossyWithAlphaChunk() throws {
        let image = try coder.decode(try Fixtures.data("webp-alpha.webp"))
        let card = Fixtures.testCard(width: 48, height: 32, alpha: true)
        #expect(image.hasAlpha)
        // The ALPH chunk is lossless at alpha_quality 100; the colour is lossy.
        for y in 0..<32 {
            for x in 0..<48 { #expect(image.bitmap[x, y].a == card[x, y].a) }
        }
        #expect(distance(image.bitmap[0, 0], RGBA(r: 3, g: 1, b: 195)) <= 2)
        #expect(distance(image.bitmap[20, 10], RGBA(r: 108, g: 80, b: 39, a: 173)) <= 2)
        #expect(distance(image.bitmap[30, 20], RGBA(r: 161, g: 166, b: 39, a: 91)) <= 2)
    }

    @Test func readsEXIFOrientationWithoutRotatingPixels() throws {
        let image = try coder.decode(try Fixtures.data("webp-orientation6.webp"))
        #expect(image.orientation == .right)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
    }

    // MARK: Animation

    @Test func decodesAnimationWithCompositingDurationsAndLoopCount() throws {
        let data = try Fixtures.data("webp-animated.webp")
        let image = try coder.decode(data)
        #expect(image.isAnimated)
        #expect(image.frames.count == 3)
        #expect(image.loopCount == 3)
        #expect(image.pixelSize == PixelSize(width: 32, height: 24))
        #expect(image.originalData == data)
        #expect(image.frames.map(\.duration) == [0.1, 0.25, 0.1], "10 ms is under the 11 ms floor: 100 ms")
        let red = RGBA(r: 255, g: 0, b: 0), blue = RGBA(r: 0, g: 0, b: 255)
        #expect(image.frames[0].bitmap == Fixtures.solid(red, width: 32, height: 24))
        // Frame 2 is stored as a sub-rectangle; composited, the red around the square remains.
        #expect(image.frames[1].bitmap[2, 2] == red)
        #expect(image.frames[1].bitmap[10, 10] == blue)
        #expect(image.frames[1].bitmap[16, 16] == red)
        #expect(image.frames[2].bitmap == Fixtures.solid(RGBA(r: 0, g: 255, b: 0, a: 128), width: 32, height: 24))
    }

    @Test func animationInfoComesFromTheContainer() throws {
        let info = try coder.animationInfo(of: try Fixtures.data("webp-animated.webp"))
        #expect(info == AnimationInfo(frameCount: 3, loopCount: 3, canvasSize: PixelSize(width: 32, height: 24)))
        let still = try coder.animationInfo(of: try Fixtures.data("webp-lossy.webp"))
        #expect(still == AnimationInfo(frameCount: 1, loopCount: 0, canvasSize: PixelSize(width: 48, height: 32)))
    }

    @Test func decodeFirstFrameOnlyGivesAStill() throws {
        let image = try coder.decode(
            try Fixtures.data("webp-animated.webp"), options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        #expect(image.frames.count == 1)
        #expect(image.frames[0].duration == 0)
        #expect(image.bitmap == Fixtures.solid(RGBA(r: 255, g: 0, b: 0), width: 32, height: 24))
    }

    @Test func animationThumbnailResamplesEveryFrame() throws {
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let image = try coder.decode(try Fixtures.data("webp-animated.webp"), options: options)
        #expect(image.frames.count == 3)
        #expect(image.frames.allSatisfy { $0.bitmap.size == PixelSize(width: 16, height: 12) })
        #expect(image.originalData == nil)
        #expect(image.frames[2].bitmap[8, 6] == RGBA(r: 0, g: 255, b: 0, a: 128))
    }

    // MARK: Thumbnails

    @Test func thumbnailUsesLibwebpsScalerAndKeepsAspect() throws {
        let card = Fixtures.testCard(width: 400, height: 100, alpha: true)
        let data = try coder.encode(Image(bitmap: card), options: .init(lossless: true))
        let fit = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(fit.pixelSize == PixelSize(width: 64, height: 16))
        #expect(fit.originalData == nil, "a thumbnail is not the original file's pixels")
        #expect(fit.hasAlpha)
        // libwebp averages (box filter) where the reference is bicubic; both follow the ramps.
        #expect(meanChannelDifference(fit.bitmap, card.resampled(to: fit.pixelSize)) < 12)
        let stretched = try coder.decode(
            data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64), preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 64, height: 64))
        let big = try coder.decode(data, options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 4000, height: 4000)))
        #expect(big.pixelSize == PixelSize(width: 400, height: 100))
        #expect(big.originalData == data)
    }

    @Test func scaleDownLimitBytesFollowsSDRule() throws {
        let data = try coder.encode(Image(bitmap: Fixtures.testCard(width: 800, height: 600)), options: .init(quality: 0.5))
        // 480,000 bytes = 120,000 RGBA pixels at 4:3 → 400×300.
        let image = try coder.decode(data, options: ImageDecodeOptions(scaleDownLimitBytes: 480_000))
        #expect(image.pixelSize == PixelSize(width: 400, height: 300))
    }

    // MARK: Limits and damage

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        #expect(throws: ImageCoderError.tooLarge(width: 48, height: 32, limit: 1000)) {
            try coder.decode(try Fixtures.data("webp-lossy.webp"), options: ImageDecodeOptions(maxPixelCount: 1000))
        }
        #expect(throws: ImageCoderError.tooLarge(width: 32, height: 24, limit: 100)) {
            try coder.decode(try Fixtures.data("webp-animated.webp"), options: ImageDecodeOptions(maxPixelCount: 100))
        }
        // A lossless header declaring 16383×16383 (1 GB of RGBA) in front of a few bytes.
        let bomb = WebPChunks.losslessHeader(width: 16383, height: 16383)
        #expect(throws: ImageCoderError.tooLarge(width: 16383, height: 16383, limit: ImageDecodeOptions.defaultMaxPixelCount)) {
            try coder.decode(bomb)
        }
        #expect(throws: ImageCoderError.tooLarge(width: 16383, height: 16383, limit: 4096)) {
            try coder.decode(bomb, options: ImageDecodeOptions(maxPixelCount: 4096))
        }
    }

    @Test func emptyAndTruncatedDataAreTypedErrors() throws {
        #expect(throws: ImageCoderError.emptyData) { try coder.decode(Data()) }
        for name in ["webp-lossy.webp", "webp-lossless.webp", "webp-alpha.webp", "webp-animated.webp"] {
            let data = try Fixtures.data(name)
            #expect(throws: ImageCoderError.truncated(.webp), "\(name)") { try coder.decode(data.prefix(data.count * 6 / 10)) }
            #expect(throws: ImageCoderError.truncated(.webp), "\(name)") { try coder.decode(data.prefix(14)) }
        }
    }

    @Test func aDamagedBitstreamIsCorruptWithTheStatusName() throws {
        var data = try Fixtures.data("webp-lossy.webp")
        // The VP8 frame tag's start code (9D 01 2A) follows the chunk header and 3 tag bytes.
        data[23] = 0x00
        #expect {
            try coder.decode(data)
        } throws: { error in
            guard case ImageCoderError.corrupt(.webp, let reason) = error else { return false }
            return reason.contains("VP8_STATUS_BITSTREAM_ERROR")
        }
    }

    /// Every prefix and a spread of single-byte corruptions either decode or throw an
    /// ImageCoderError: never crash.
    @Test("damaged input never crashes", arguments: ["webp-lossy", "webp-alpha", "webp-lossless", "webp-animated", "webp-orientation6"])
    func damagedInputNeverCrashes(name: String) throws {
        let data = try Fixtures.data("\(name).webp")
        for end in 0..<data.count {
            expectDecodesOrTypedError { try coder.decode(data.prefix(end)) }
            #expect(throws: Never.self) {
                do { _ = try coder.animationInfo(of: data.prefix(end)) } catch is ImageCoderError {}
            }
        }
        var generator = SplitMix64(seed: 13)
        for _ in 0..<300 {
            var damaged = data
            let index = Int(generator.next() % UInt64(data.count))
            damaged[index] = UInt8(truncatingIfNeeded: generator.next())
            expectDecodesOrTypedError { try coder.decode(damaged) }
            expectDecodesOrTypedError {
                let decoder = coder.makeIncrementalDecoder(options: .default)
                _ = try? feedInChunks(damaged.prefix(damaged.count - 1), to: decoder, chunks: 4)
                decoder.update(damaged, isFinal: true)
                return try #require(try decoder.decodedImage())
            }
        }
    }

    // MARK: Incremental decoding

    @Test func incrementalDecodingFillsRowsTopToBottom() throws {
        let card = Fixtures.testCard(width: 128, height: 512)
        let data = try coder.encode(Image(bitmap: card), options: .init(quality: 0.9))
        let full = try coder.decode(data).bitmap
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(20), isFinal: false)
        #expect(try decoder.decodedImage() == nil, "nothing before the header")
        let images = try feedInChunks(data, to: decoder, chunks: 8)
        let partials = images.dropLast().compactMap { $0 }
        #expect(partials.count == 7)
        #expect(partials.allSatisfy { $0.isIncremental && $0.pixelSize == card.size })
        let rows = partials.map(opaqueRows)
        #expect(rows == rows.sorted(), "rows only ever grow")
        #expect(rows.first! < rows.last!)
        #expect(rows.contains { $0 > 0 && $0 < 512 }, "a partial image shows some rows")
        // The rows a partial image shows are already final.
        let middle = partials[partials.count / 2].bitmap
        let shown = opaqueRows(partials[partials.count / 2])
        #expect(Array(middle.pixels.prefix(shown * middle.bytesPerRow)) == Array(full.pixels.prefix(shown * full.bytesPerRow)))
        #expect(middle[0, 511].a == 0, "rows not decoded yet are transparent")
        let final = try #require(images.last ?? nil)
        #expect(!final.isIncremental)
        #expect(final.bitmap == full)
        #expect(final.originalData == data)
    }

    @Test func incrementalLosslessWithThumbnail() throws {
        let card = Fixtures.testCard(width: 256, height: 256, alpha: true)
        let data = try coder.encode(Image(bitmap: card), options: .init(lossless: true))
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let images = try feedInChunks(data, to: coder.makeIncrementalDecoder(options: options), chunks: 5)
        let partials = images.dropLast().compactMap { $0 }
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.pixelSize == PixelSize(width: 64, height: 64) && $0.hasAlpha })
        #expect(images.last??.bitmap == (try coder.decode(data, options: options)).bitmap)
    }

    @Test func incrementalAnimationWaitsForTheWholeFile() throws {
        let data = try Fixtures.data("webp-animated.webp")
        let images = try feedInChunks(data, to: coder.makeIncrementalDecoder(options: .default), chunks: 4)
        #expect(images.dropLast().allSatisfy { $0 == nil })
        #expect(images.last??.frames.count == 3)
    }

    @Test func incrementalChecksThePixelLimitFromTheHeader() throws {
        let decoder = coder.makeIncrementalDecoder(options: ImageDecodeOptions(maxPixelCount: 4096))
        decoder.update(WebPChunks.losslessHeader(width: 16383, height: 16383), isFinal: false)
        #expect(throws: ImageCoderError.tooLarge(width: 16383, height: 16383, limit: 4096)) { try decoder.decodedImage() }
    }

    @Test func incrementalTruncatedFinalUpdateThrows() throws {
        let data = try Fixtures.data("webp-lossy.webp")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        decoder.update(data.prefix(data.count - 20), isFinal: true)
        #expect(throws: ImageCoderError.truncated(.webp)) { try decoder.decodedImage() }
    }

    // MARK: Encoding

    @Test func canEncodeOnlyWebP() {
        #expect(coder.canEncode(to: .webp))
        #expect(!coder.canEncode(to: .png))
        #expect(throws: ImageCoderError.self) {
            try coder.encode(Image(bitmap: Fixtures.testCard(width: 4, height: 4)), as: .png, options: .default)
        }
    }

    @Test func lossyEncodingFollowsQuality() throws {
        let card = Fixtures.testCard(width: 64, height: 48)
        let high = try coder.encode(Image(bitmap: card), options: .init(quality: 0.95))
        let low = try coder.encode(Image(bitmap: card), options: .init(quality: 0.1))
        #expect(ImageFormat.detect(high) == .webp)
        #expect(Array(high[12..<16]) == Array("VP8 ".utf8), "simple lossy file")
        #expect(low.count < high.count)
        let highDecoded = try coder.decode(high)
        #expect(highDecoded.hasAlpha == false)
        let highError = meanChannelDifference(highDecoded.bitmap, card)
        #expect(highError < meanChannelDifference(try coder.decode(low).bitmap, card))
        #expect(highError < 6)
    }

    @Test func lossyEncodingKeepsAlpha() throws {
        let card = Fixtures.testCard(width: 64, height: 48, alpha: true)
        let decoded = try coder.decode(try coder.encode(Image(bitmap: card), options: .init(quality: 0.9)))
        #expect(decoded.hasAlpha)
        for y in 0..<48 { #expect(decoded.bitmap[5, y].a == card[5, y].a) }
    }

    @Test func losslessEncodingIsExact() throws {
        let card = Fixtures.testCard(width: 40, height: 30, alpha: true)  // the last row is fully transparent
        let data = try coder.encode(Image(bitmap: card), options: .init(lossless: true))
        #expect(Array(data[12..<16]) == Array("VP8L".utf8))
        let decoded = try coder.decode(data)
        #expect(decoded.hasAlpha)
        #expect(decoded.bitmap == card)
        let opaque = Fixtures.testCard(width: 40, height: 30)
        let opaqueDecoded = try coder.decode(try coder.encode(Image(bitmap: opaque), options: .init(lossless: true)))
        #expect(opaqueDecoded.hasAlpha == false)
        #expect(opaqueDecoded.bitmap == opaque)
    }

    @Test func encodeScalesIntoMaxPixelSize() throws {
        let image = Image(bitmap: Fixtures.testCard(width: 200, height: 100))
        let data = try coder.encode(image, options: .init(maxPixelSize: PixelSize(width: 50, height: 50)))
        #expect(try coder.decode(data).pixelSize == PixelSize(width: 50, height: 25))
    }

    @Test func animatedLosslessRoundTrip() throws {
        let frames = [
            ImageFrame(bitmap: Fixtures.testCard(width: 40, height: 30, alpha: true), duration: 0.2),
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: 10, g: 20, b: 30, a: 255), width: 40, height: 30), duration: 0.05),
            ImageFrame(bitmap: Fixtures.testCard(width: 40, height: 30), duration: 0),
        ]
        let data = try coder.encode(Image(frames: frames, loopCount: 2), options: .init(lossless: true))
        let info = try coder.animationInfo(of: data)
        #expect(info == AnimationInfo(frameCount: 3, loopCount: 2, canvasSize: PixelSize(width: 40, height: 30)))
        let decoded = try coder.decode(data)
        #expect(decoded.loopCount == 2)
        #expect(decoded.frames.map(\.duration) == [0.2, 0.05, 0.1], "no duration is written as the 100 ms it plays at")
        #expect(decoded.frames[1].bitmap == frames[1].bitmap)
        #expect(decoded.frames[2].bitmap == frames[2].bitmap)
        // Fully transparent pixels may lose their colour in the animation encoder; visible ones may not.
        let first = decoded.frames[0].bitmap
        for y in 0..<29 {
            for x in 0..<40 { #expect(first[x, y] == frames[0].bitmap[x, y]) }
        }
    }

    @Test func animatedLossyRoundTripAndFirstFrameOnly() throws {
        let frames = (0..<4).map { i in
            ImageFrame(bitmap: Fixtures.solid(RGBA(r: UInt8(i * 60), g: 100, b: 200), width: 32, height: 32), duration: 0.04)
        }
        let image = Image(frames: frames, loopCount: 0)
        let data = try coder.encode(image, options: .init(quality: 0.8))
        let decoded = try coder.decode(data)
        #expect(decoded.frames.count == 4)
        #expect(decoded.loopCount == 0)
        #expect(decoded.frames.map(\.duration) == [0.04, 0.04, 0.04, 0.04])
        for (got, sent) in zip(decoded.frames, frames) { #expect(maxChannelDifference(got.bitmap, sent.bitmap) <= 4) }
        let still = try coder.encode(image, options: .init(quality: 0.8, encodeFirstFrameOnly: true))
        #expect(try coder.animationInfo(of: still).frameCount == 1)
        #expect(try coder.decode(still).frames.count == 1)
    }

    @Test func framesOfDifferentSizesCannotBeAnimated() {
        let image = Image(frames: [
            ImageFrame(bitmap: Fixtures.testCard(width: 8, height: 8), duration: 0.1),
            ImageFrame(bitmap: Fixtures.testCard(width: 9, height: 8), duration: 0.1),
        ])
        #expect(throws: ImageCoderError.self) { try coder.encode(image) }
    }
}

/// Sum of per-channel differences.
private func distance(_ a: RGBA, _ b: RGBA) -> Int {
    abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b)) + abs(Int(a.a) - Int(b.a))
}

/// How many rows from the top are opaque (decoded, for an opaque source).
private func opaqueRows(_ image: Image) -> Int {
    let bitmap = image.bitmap
    var rows = 0
    while rows < bitmap.height, bitmap[0, rows].a == 255 { rows += 1 }
    return rows
}

/// Builds minimal WebP streams for header tests.
enum WebPChunks {
    /// A RIFF/VP8L file whose 5-byte header declares `width` × `height`, followed by zero bytes
    /// that are no valid image.
    static func losslessHeader(width: Int, height: Int) -> Data {
        var payload = Data([0x2F])  // VP8L signature
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14  // no alpha, version 0
        withUnsafeBytes(of: bits.littleEndian) { payload.append(contentsOf: $0) }
        payload.append(Data(count: 11))
        var file = Data("RIFF".utf8)
        withUnsafeBytes(of: UInt32(4 + 8 + payload.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(Data("WEBPVP8L".utf8))
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { file.append(contentsOf: $0) }
        return file + payload
    }
}
