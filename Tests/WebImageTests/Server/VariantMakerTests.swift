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
    return try #require(try await onOwnThread { processor.process(image) })
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
}
