import Foundation
import Testing
@testable import WebImage

private let coders = ImageCodersManager(coders: ImageCodersManager().allCoders + [HEIFCoder()])

private func decode(_ name: String, _ options: ImageDecodeOptions = .default) throws -> Image {
    try coders.decode(try Fixtures.data(name), options: options)
}

/// The fixtures hold the test card's sRGB pixels converted by Pillow's ImageCms into Display P3
/// or Adobe RGB values and tagged with that profile; `colour-*-expected.png` is ImageCms's own
/// conversion back to sRGB (Tools/harness/make-fixtures).
@Suite("Colour management")
struct ColorManagementTests {
    @Test("an embedded profile is converted to sRGB as Little CMS via Pillow's ImageCms converts it, in every format that carries one",
          arguments: [
              ("colour-displayp3.png", "colour-displayp3-expected.png", 1, 0.05),  // iCCP
              ("colour-displayp3.jpg", "colour-displayp3-jpeg-expected.png", 1, 0.05),  // APP2
              ("colour-displayp3.webp", "colour-displayp3-expected.png", 1, 0.05),  // ICCP, lossless
              ("colour-displayp3.avif", "colour-displayp3-expected.png", 1, 0.05),  // colr prof, lossless
              ("colour-displayp3.jxl", "colour-displayp3-expected.png", 1, 0.05),  // lossless, original profile
              ("colour-adobergb.png", "colour-adobergb-expected.png", 1, 0.05),
              ("colour-gamma18.png", "colour-gamma18-expected.png", 1, 0.05),  // gAMA only
              // Lossy YUV (nclx forbids the identity matrix here; heif-enc's x265 is 4:2:0): the mean tells.
              ("colour-displayp3-nclx.avif", "colour-displayp3-expected.png", 24, 1.0),
              ("colour-displayp3.heic", "colour-displayp3-expected.png", 24, 2.0),
          ])
    func convertsToSRGB(file: String, expected: String, maxDifference: Int, meanDifference: Double) throws {
        let image = try decode(file)
        let reference = try decode(expected)
        #expect(image.colorProfile == nil, "sRGB pixels carry no profile")
        let (largest, mean) = image.bitmap.difference(from: reference.bitmap)
        #expect(largest <= maxDifference && mean <= meanDifference, "max \(largest), mean \(mean)")
        // Unconverted, the same pixels are far off: the conversion is what made them match.
        let kept = try decode(file, ImageDecodeOptions(convertsToSRGB: false))
        #expect(kept.bitmap.difference(from: reference.bitmap).mean > 5)
        #expect(image.originalData == kept.originalData, "the bytes still stand for the image")
    }

    @Test("an APNG's iCCP converts every frame, decoded all at once or on demand")
    func animatedPNG() throws {
        let data = try Fixtures.data("colour-displayp3-apng.png")
        let expected = try decode("colour-displayp3-expected.png").bitmap
        let flipped = expected.oriented(ImageOrientation(exifValue: 4))
        let eager = try coders.decode(data)
        let lazy = try AnimatedImage(data: data)
        #expect(eager.frames.count == 2 && lazy.frameCount == 2)
        for (index, reference) in [expected, flipped].enumerated() {
            #expect(eager.frames[index].bitmap.difference(from: reference).max <= 1, "eager frame \(index)")
            #expect(try lazy.frame(at: index).difference(from: reference).max <= 1, "lazy frame \(index)")
        }
    }

    @Test("convertsToSRGB false keeps the pixels as encoded and the profile on the image")
    func keepsProfile() throws {
        let profileBytes = try Fixtures.data("colour-displayp3.icc")
        for file in ["colour-displayp3.png", "colour-displayp3.jpg", "colour-displayp3.webp", "colour-displayp3.avif"] {
            let kept = try decode(file, ImageDecodeOptions(convertsToSRGB: false))
            #expect(kept.colorProfile?.data == profileBytes, "\(file)")
        }
        #expect(ColorProfile(iccData: profileBytes)?.name == "Display P3 (WebImage fixture)")
        #expect(ColorProfile(iccData: Data("not a profile".utf8)) == nil)
    }

    @Test("encoders embed a kept profile, so a later decode converts it: as close to ImageCms's sRGB as the format's own loss allows",
          arguments: [ImageFormat.png, .webp, .jpeg, .avif])
    func encodersEmbed(format: ImageFormat) throws {
        let kept = try decode("colour-displayp3.png", ImageDecodeOptions(convertsToSRGB: false))
        let expected = try decode("colour-displayp3-expected.png")
        let options = ImageEncodeOptions(quality: 1, lossless: format == .webp || format == .avif)
        let encoded = try coders.encode(kept, as: format, options: options)
        let again = try coders.decode(encoded, options: ImageDecodeOptions(convertsToSRGB: false))
        #expect(again.colorProfile?.data == kept.colorProfile?.data)
        // The format's own loss (JPEG's 4:2:0 smears the card's checker) measured on sRGB pixels.
        let ownLoss = try coders.decode(try coders.encode(expected, as: format, options: options)).bitmap.difference(from: expected.bitmap).mean
        let mean = try coders.decode(encoded).bitmap.difference(from: expected.bitmap).mean
        #expect(mean <= ownLoss + 0.5, "mean \(mean), the format alone \(ownLoss)")
        let stripped = try coders.encode(kept, as: format, options: ImageEncodeOptions(quality: 1, embedsColorProfile: false))
        #expect(try coders.decode(stripped, options: ImageDecodeOptions(convertsToSRGB: false)).colorProfile == nil)
    }

    @Test("sRGB under another name (Debian's sRGB.icc) changes nothing: the same pixels as the untagged card, no profile kept")
    func sRGBProfileIsIdentity() throws {
        let tagged = try decode("colour-srgb-icc.png")
        let kept = try decode("colour-srgb-icc.png", ImageDecodeOptions(convertsToSRGB: false))
        #expect(tagged.bitmap == kept.bitmap)
        #expect(kept.colorProfile == nil)
        #expect(ColorProfile.rgb(.sRGB, transfer: .gamma(2.2)) == nil && ColorProfile.rgb(.sRGB, transfer: .bt709) == nil)
        #expect(ColorProfile.rgb(.sRGB, transfer: .gamma(1.8)) != nil)
    }

    @Test("thumbnails are converted too; so is every frame of an animation, shared buffers staying shared")
    func thumbnailsAndFrames() throws {
        let box = PixelSize(width: 32, height: 32)
        let thumbnail = try decode("colour-displayp3.png", ImageDecodeOptions(thumbnailPixelSize: box))
        let reference = try decode("colour-displayp3-expected.png", ImageDecodeOptions(thumbnailPixelSize: box))
        #expect(thumbnail.pixelSize == reference.pixelSize)
        // Resampling before converting (cheaper: fewer pixels) differs at the checker's edges only.
        #expect(thumbnail.bitmap.difference(from: reference.bitmap).mean <= 1)

        let frame = try decode("colour-displayp3.png", ImageDecodeOptions(convertsToSRGB: false)).bitmap
        let animation = Image(frames: [ImageFrame(bitmap: frame, duration: 0.1), ImageFrame(bitmap: frame, duration: 0.1)])
        let profile = try #require(ColorProfile(iccData: try Fixtures.data("colour-displayp3.icc")))
        let converted = animation.colorManaged(profile, options: .default)
        #expect(converted.frames.count == 2 && converted.frames[0].bitmap == converted.frames[1].bitmap)
        #expect(converted.cost == animation.cost, "one buffer, converted once")
        #expect(converted.bitmap.difference(from: try decode("colour-displayp3-expected.png").bitmap).max <= 1)
    }
}
