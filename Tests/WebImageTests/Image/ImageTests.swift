import Foundation
import Testing
@testable import WebImage

@Suite("Image")
struct ImageTests {
    @Test func costCountsUniqueFrameBuffers() {
        let a = Fixtures.solid(RGBA(r: 1, g: 2, b: 3), width: 10, height: 4)
        let b = Fixtures.solid(RGBA(r: 9, g: 9, b: 9), width: 10, height: 4)
        let still = Image(bitmap: a)
        #expect(still.cost == 10 * 4 * 4)
        // The middle frame shares `a`'s storage (a GIF frame that changes nothing).
        let animation = Image(frames: [ImageFrame(bitmap: a, duration: 0.1), ImageFrame(bitmap: a, duration: 0.1),
                                       ImageFrame(bitmap: b, duration: 0.2)], loopCount: 0)
        #expect(animation.cost == 2 * 10 * 4 * 4)
        #expect(animation.isAnimated)
        #expect(abs(animation.duration - 0.4) < 1e-9)
    }

    @Test func alphaIsDetectedWhenNotDeclared() {
        #expect(Image(bitmap: Fixtures.testCard(width: 8, height: 8, alpha: true)).hasAlpha)
        #expect(!Image(bitmap: Fixtures.testCard(width: 8, height: 8)).hasAlpha)
    }

    @Test func aTransparentPixelIsFoundWhereverItIs() {
        // First pixel, last pixel, and either side of the scan's runs of 4,096 pixels.
        for index in [0, 4095, 4096, 8191, 100 * 90 - 1] {
            var bitmap = Fixtures.solid(RGBA(r: 1, g: 2, b: 3, a: 255), width: 100, height: 90)
            #expect(!bitmap.containsTransparency)
            bitmap.pixels[index * 4 + 3] = 254
            #expect(bitmap.containsTransparency, "pixel \(index)")
        }
    }

    @Test func scaleGivesThePointSize() {
        let image = Image(bitmap: Fixtures.testCard(width: 200, height: 100), scale: 2)
        #expect(image.pointSize.width == 100 && image.pointSize.height == 50)
        #expect(image.with(scale: 3).scale == 3)
        #expect(Image(bitmap: Fixtures.testCard(width: 2, height: 2), scale: 0).scale == 1)
    }

    @Test func orientationFromEXIFValues() {
        #expect(ImageOrientation(exifValue: 6) == .right)
        #expect(ImageOrientation(exifValue: 8) == .left)
        #expect(ImageOrientation(exifValue: 0) == .up)
        #expect(ImageOrientation(exifValue: 99) == .up)
        #expect(ImageOrientation.right.swapsDimensions && !ImageOrientation.down.swapsDimensions)
    }

    @Test func pixelSizeParsing() {
        #expect(PixelSize(parsing: "256x128") == PixelSize(width: 256, height: 128))
        #expect(PixelSize(parsing: "64") == PixelSize(width: 64, height: 64))
        #expect(PixelSize(parsing: "0x5") == nil)
        #expect(PixelSize(parsing: "ax5") == nil)
        #expect(PixelSize(parsing: "1x2x3") == nil)
    }
}
