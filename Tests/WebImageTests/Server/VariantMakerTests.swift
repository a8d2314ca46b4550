import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// A smooth 800×600 photo stand-in (the shared test card without its checker): gradients survive
/// JPEG and scaling alike, so a variant made from a scaled decode can be compared with one made
/// from the full-size pixels. Kept small: debug and ThreadSanitizer builds run these pixel loops
/// on the test pool, and a bigger card starved other specs' tasks there.
private let photo: Data = try! JPEGCoder().encode(
    Image(bitmap: Fixtures.testCard(width: 800, height: 600, checker: false)), as: .jpeg,
    options: ImageEncodeOptions(quality: 0.95))

private func processor(_ options: String) throws -> ThumborProcessor {
    ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/\(options)/example.com/a.jpg"))
}

private func maker(_ options: String, sourcePixels: Int = 50_000_000, outputPixels: Int = 25_000_000,
                   animationBytes: Int = 256 << 20) throws -> VariantMaker {
    let processor = try processor(options)
    return VariantMaker(processor: processor, output: try processor.output(),
                        limits: .init(sourcePixels: sourcePixels, outputPixels: outputPixels, animationBytes: animationBytes),
                        coders: .shared)
}

/// The same variant made the slow way: full-size decode, then the geometry (on a thread of its
/// own, off the test pool).
private func fullSizeVariant(_ options: String, of data: Data) async throws -> Image {
    let processor = try processor(options)
    let image = try await onOwnThread { try ImageCodersManager.shared.decode(data) }
    return try #require(try await onOwnThread { try processor.process(image) })
}

/// Mean absolute difference per channel, 0–255.
private func meanDifference(_ a: Image, _ b: Image) -> Double {
    var total = 0
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a.bitmap[x, y], q = b.bitmap[x, y]
            total += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
        }
    }
    return Double(total) / Double(a.width * a.height * 3)
}

@Suite("webimage serve: each variant decodes its source at the size it needs")
struct VariantMakerTests {
    @Test("the decode size is the geometry's scale on the whole source; enlarging, trim and full size decode in full")
    func decodeSizes() throws {
        let source = PixelSize(width: 1600, height: 1200)
        func box(_ options: String) throws -> ThumborProcessor.DecodeBox? { try processor(options).decodeBox(forSource: source) }
        #expect(try box("200x150") == .init(size: PixelSize(width: 200, height: 150), keepsAspectRatio: false))
        #expect(try box("fit-in/307x307") == .init(size: PixelSize(width: 307, height: 230), keepsAspectRatio: false),
                "the whole source: exactly the variant's size, so no second resample")
        #expect(try box("200x200") == .init(size: PixelSize(width: 267, height: 200), keepsAspectRatio: true),
                "fill-and-crop needs the shorter side to cover")
        #expect(try box("400x300:1200x900/100x75") == .init(size: PixelSize(width: 200, height: 150), keepsAspectRatio: true),
                "a crop box scales the whole source by the box's own scale")
        #expect(try box("3200x0") == nil)
        #expect(try box("0x0") == nil)
        #expect(try box("trim/200x150") == nil)
    }

    @Test("a variant from the scaled decode matches the one from full-size pixels",
          arguments: ["100x75", "160x160", "fit-in/300x300", "fit-in/307x307", "200x150:600x450/100x75", "-120x90", "right/bottom/90x120"])
    func scaledDecodeMatchesTheFullOne(options: String) async throws {
        let made = try await maker(options).make(from: photo, accept: "image/png")
        let variant = try ImageCodersManager.shared.decode(made.data)
        let reference = try await fullSizeVariant(options, of: photo)
        #expect(variant.pixelSize == reference.pixelSize)
        #expect(try await onOwnThread { meanDifference(variant, reference) } < 3, "\(options)")
    }

    @Test("EXIF orientation: the decode box turns with the stored pixels, the variant is upright")
    func orientation() async throws {
        let data = try Fixtures.data("jpeg-orientation6.jpg")
        let header = try ImageCodersManager.shared.header(of: data)
        let made = try await maker("\(header.uprightSize.width / 2)x0").make(from: data, accept: "image/png")
        let variant = try ImageCodersManager.shared.decode(made.data)
        let reference = try await fullSizeVariant("\(header.uprightSize.width / 2)x0", of: data)
        #expect(variant.pixelSize == reference.pixelSize)
        #expect(variant.width == header.uprightSize.width / 2)
        // A 48×32 test card has hard edges, which two resampling paths soften differently; a
        // variant left on its side would differ by ~90.
        #expect(meanDifference(variant, reference) < 12)
        let original = try ImageCodersManager.shared.decode(try await maker("0x0").make(from: data, accept: "image/png").data)
        #expect(original.pixelSize == header.uprightSize, "full size untouched is still turned upright")
    }

    @Test("limits are checked on the header's sizes before any decode: source pixels, output pixels; an animation past its budget is 413")
    func limits() async throws {
        await #expect(throws: ServerFailure.tooLarge) { try await maker("100x0", sourcePixels: 100_000).make(from: photo, accept: nil) }
        await #expect(throws: ServerFailure.tooLarge) { try await maker("4000x3000/filters:upscale()", outputPixels: 10_000_000).make(from: photo, accept: nil) }
        let animation = try Fixtures.data("gif-pillow-animated.gif")
        await #expect(throws: ServerFailure.tooLarge) { try await maker("0x0", animationBytes: 64).make(from: animation, accept: nil) }
        let fits = try await maker("0x0").make(from: animation, accept: "image/webp")
        #expect(try ImageCodersManager.shared.decode(fits.data).isAnimated, "an animated source stays animated")
        await #expect(throws: ServerFailure.notAnImage) { try await maker("10x10").make(from: Data(photo.prefix(300)), accept: nil) }
    }

    /// A white `side`×`side` PNG with one black row across its middle: `trim` leaves that row alone.
    private static func oneRow(side: Int) throws -> Data {
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for x in 0..<side { pixels.replaceSubrange((side / 2 * side + x) * 4..<(side / 2 * side + x) * 4 + 3, with: [0, 0, 0]) }
        return try PNGCoder().encode(Image(bitmap: Bitmap(width: side, height: side, pixels: pixels)), as: .png, options: ImageEncodeOptions())
    }

    @Test("the output size is checked again after trim: a 1-row trim asked at 0x5000 is 413, never a 5,000,000×5000 bitmap")
    func trimThenSize() async throws {
        let data = try Self.oneRow(side: 1000)
        await #expect(throws: ServerFailure.tooLarge) { try await maker("trim/0x5000").make(from: data, accept: nil) }
        await #expect(throws: ServerFailure.tooLarge) { try await maker("trim/0x2000").make(from: data, accept: nil) }
        let fits = try ImageCodersManager.shared.decode(try await maker("trim/100x0").make(from: data, accept: "image/png").data)
        #expect(fits.pixelSize == PixelSize(width: 100, height: 1))
    }

    @Test("rotate() takes whole degrees, a multiple of 90 modulo 360; anything else is ignored and never grows the image",
          arguments: [("90", 1), ("450", 1), ("-90", 3), ("180", 2), ("720", 0), ("252e19", nil), ("45", nil), ("90.0", nil), ("9e99", nil)] as [(String, Int?)])
    func rotateDegrees(_ text: String, quarterTurns: Int?) {
        #expect(ThumborProcessor.quarterTurns(text) == quarterTurns)
    }

    @Test("three rotate(252e19) leave a 1000x1000 variant at 1000x1000 under a 1 MP output limit; rotate(90) turns it")
    func rotateCannotGrow() async throws {
        let data = try Self.oneRow(side: 1000)
        let options = "1000x1000/filters:rotate(252e19):rotate(252e19):rotate(252e19)"
        let made = try await maker(options, outputPixels: 1_000_000).make(from: data, accept: "image/png")
        #expect(try ImageCodersManager.shared.decode(made.data).pixelSize == PixelSize(width: 1000, height: 1000))
        let turned = try await maker("20x10/filters:rotate(90)").make(from: photo, accept: "image/png")
        #expect(try ImageCodersManager.shared.decode(turned.data).pixelSize == PixelSize(width: 10, height: 20))
    }

    @Test("an animation's output is budgeted as frames × output pixels × 4 before any work: 400 frames of 1×1 asked at 600x600 is 413")
    func animatedOutputBudget() async throws {
        let frames = (0..<400).map { index in
            ImageFrame(bitmap: Bitmap(width: 1, height: 1, pixels: [UInt8(index % 256), 0, 0, 255]), duration: 0.05)
        }
        let gif = try ImageCodersManager.shared.encode(Image(frames: frames), as: .gif, options: ImageEncodeOptions())
        #expect(gif.count < 20_000)
        await #expect(throws: ServerFailure.tooLarge) { try await maker("600x600", animationBytes: 1 << 20).make(from: gif, accept: nil) }
        let small = try await maker("20x20", animationBytes: 1 << 20).make(from: gif, accept: "image/gif")
        #expect(try ImageCodersManager.shared.decode(small.data).frames.count > 1)
    }

    @Test("the output budget refuses a size whose pixels or animation bytes overflow or pass the limit")
    func budgetArithmetic() {
        let budget = OutputBudget(pixels: 100, animationBytes: 800)
        #expect(throws: OutputBudget.Exceeded.self) { try budget.check(PixelSize(width: Int.max / 2, height: 3), frames: 1) }
        #expect(throws: OutputBudget.Exceeded.self) { try budget.check(PixelSize(width: 11, height: 10), frames: 1) }
        #expect(throws: OutputBudget.Exceeded.self) { try budget.check(PixelSize(width: 10, height: 10), frames: 3) }
        #expect(throws: Never.self) { try budget.check(PixelSize(width: 10, height: 10), frames: 2) }
    }
}
