import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// A `width`×`height` image whose pixel (x, y) is `color(x, y)`.
func compositionImage(_ width: Int, _ height: Int, _ color: (Int, Int) -> RGBA) -> Image {
    var pixels: [UInt8] = []
    pixels.reserveCapacity(width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let c = color(x, y)
            pixels += [c.r, c.g, c.b, c.a]
        }
    }
    return Image(frames: [ImageFrame(bitmap: Bitmap(width: width, height: height, pixels: pixels))])
}

/// `options` (a thumbor path's options, before the source) run on `image`, with `overlays` drawn by URL.
private func processed(_ options: String, _ image: Image, overlays: [String: Image] = [:]) throws -> Image {
    let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/\(options)/example.com/a.png"))
    return try #require(try processor.process(image, overlays: overlays))
}

private let red = RGBA(r: 255, g: 0, b: 0)
private let slate = RGBA(r: 10, g: 20, b: 30)

@Suite("thumbor's composition filters: fill, watermark, frame, proportion, stretch")
struct CompositionFilterTests {
    @Test("fill(ff0000) pads fit-in/300x300 to 300×300: the colour at the borders, the image centred")
    func fillPadsTheBox() throws {
        let out = try processed("fit-in/300x300/filters:fill(ff0000)", compositionImage(300, 188) { _, _ in slate })
        #expect(out.width == 300 && out.height == 300)
        // (300 − 188) // 2 = 56 rows above, 56 below.
        #expect(out.bitmap[0, 0] == red && out.bitmap[150, 55] == red && out.bitmap[299, 299] == red && out.bitmap[150, 244] == red)
        #expect(out.bitmap[150, 56] == slate && out.bitmap[150, 243] == slate && out.bitmap[0, 150] == slate)
    }

    @Test("fill pads a source smaller than the box without enlarging it, centred by thumbor's floor division")
    func fillSmallSource() throws {
        let out = try processed("fit-in/10x9/filters:fill(blue)", compositionImage(3, 4) { _, _ in slate })
        #expect(out.width == 10 && out.height == 9)
        // x: (10 − 3) // 2 = 3; y: (9 − 4) // 2 = 2.
        #expect(out.bitmap[2, 2] == RGBA(r: 0, g: 0, b: 255) && out.bitmap[3, 2] == slate && out.bitmap[5, 5] == slate)
        #expect(out.bitmap[6, 5] == RGBA(r: 0, g: 0, b: 255) && out.bitmap[3, 6] == RGBA(r: 0, g: 0, b: 255))
    }

    @Test("fill(transparent) keeps alpha 0 at the borders, also once written as PNG")
    func fillTransparent() async throws {
        let out = try processed("fit-in/20x20/filters:fill(transparent)", compositionImage(20, 10) { _, _ in slate })
        #expect(out.width == 20 && out.height == 20)
        #expect(out.bitmap[0, 0].a == 0 && out.bitmap[10, 4].a == 0 && out.bitmap[10, 15].a == 0)
        #expect(out.bitmap[10, 10] == slate)
        let png = try ImageCodersManager.shared.encode(compositionImage(20, 10) { _, _ in slate }, as: .png)
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/fit-in/20x20/filters:fill(transparent):format(png)/example.com/a.png"))
        let maker = VariantMaker(processor: processor, output: try processor.output(),
                                 limits: .init(sourcePixels: 1_000_000, outputPixels: 1_000_000, animationBytes: 1 << 20), coders: .shared)
        let written = try ImageCodersManager.shared.decode(try await maker.make(from: png, accept: nil).data)
        #expect(written.width == 20 && written.height == 20 && written.bitmap[0, 0].a == 0 && written.bitmap[10, 10] == slate)
    }

    @Test("fill(color) leaves the image's own transparency; fill(color,true) merges it over the colour")
    func fillTransparentPixels() throws {
        let clearCorner = compositionImage(4, 2) { x, _ in x == 0 ? RGBA(r: 0, g: 0, b: 0, a: 0) : slate }
        let kept = try processed("fit-in/4x4/filters:fill(red)", clearCorner)
        #expect(kept.bitmap[0, 1].a == 0 && kept.bitmap[0, 0] == red)
        let merged = try processed("fit-in/4x4/filters:fill(red,true)", clearCorner)
        #expect(merged.bitmap[0, 1] == red && merged.bitmap[1, 1] == slate)
    }

    @Test("fill(auto) pads with the image's mean colour, as thumbor's _fill computes it")
    func fillAuto() throws {
        let halves = compositionImage(10, 5) { x, _ in x < 5 ? RGBA(r: 0, g: 0, b: 0) : RGBA(r: 200, g: 101, b: 51) }
        let out = try processed("fit-in/10x10/filters:fill(auto)", halves)
        #expect(out.bitmap[0, 0] == RGBA(r: 100, g: 50, b: 25))
        #expect(out.bitmap[7, 5] == RGBA(r: 200, g: 101, b: 51))
    }

    @Test("fill(blur) stretches the blurred image over the box: a one-colour image pads with its colour")
    func fillBlur() throws {
        let out = try processed("fit-in/60x60/filters:fill(blur)", compositionImage(60, 30) { _, _ in slate })
        #expect(out.width == 60 && out.height == 60)
        for (x, y) in [(0, 0), (30, 5), (59, 59)] {
            let p = out.bitmap[x, y]
            #expect(abs(Int(p.r) - 10) <= 1 && abs(Int(p.g) - 20) <= 1 && abs(Int(p.b) - 30) <= 1 && p.a == 255)
        }
    }

    @Test("a fill box over the output pixel limit is a 413 before any work")
    func fillBoxBounded() async throws {
        let png = try ImageCodersManager.shared.encode(compositionImage(4, 4) { _, _ in slate }, as: .png)
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/fit-in/20000x20000/filters:fill(red)/example.com/a.png"))
        let maker = VariantMaker(processor: processor, output: try processor.output(),
                                 limits: .init(sourcePixels: 1_000_000, outputPixels: 25_000_000, animationBytes: 1 << 20), coders: .shared)
        #expect(throws: ServerFailure.tooLarge) { try maker.plan(png, accept: nil) }
    }

    @Test("fill's arguments: a colour thumbor cannot read or a `#` is ignored, as thumbor ignores it")
    func fillArguments() throws {
        let image = compositionImage(4, 2) { _, _ in slate }
        #expect(try processed("fit-in/4x4/filters:fill(nocolour)", image).height == 2)
        #expect(try processed("fit-in/4x4/filters:fill(abc)", image).height == 4)
    }

    @Test("proportion(0.5) halves the result; proportion(1000) and proportion(0.001) are ignored, as thumbor ignores p outside (0, 1] or under a pixel")
    func proportion() throws {
        let image = compositionImage(40, 20) { x, _ in x < 20 ? red : slate }
        let half = try processed("filters:proportion(0.5)", image)
        #expect(half.width == 20 && half.height == 10)
        #expect(half.bitmap[2, 5] == red && half.bitmap[17, 5] == slate)
        let huge = try processed("filters:proportion(1000)", image)
        #expect(huge.width == 40 && huge.height == 20)
        #expect(try processed("filters:proportion(0.001)", image).width == 40)
        #expect(try processed("filters:proportion(-2)", image).width == 40)
        // Applied after the resize, to its result (thumbor's post-transform phase), truncated.
        let afterResize = try processed("30x15/filters:proportion(0.3)", image)
        #expect(afterResize.width == 9 && afterResize.height == 4)
    }

    @Test("stretch() scales the whole image to the box, where default mode crops it to the box's aspect")
    func stretch() throws {
        // Red in the left fifth: a centred 50×50 crop of 100×50 misses it, a stretch keeps it (squeezed).
        let image = compositionImage(100, 50) { x, _ in x < 20 ? red : slate }
        let cropped = try processed("50x50", image)
        #expect(cropped.width == 50 && cropped.bitmap[2, 25] == slate)
        let stretched = try processed("50x50/filters:stretch()", image)
        #expect(stretched.width == 50 && stretched.height == 50)
        #expect(stretched.bitmap[2, 25] == red && stretched.bitmap[5, 25] == red && stretched.bitmap[14, 25] == slate)
        let fitted = try processed("fit-in/50x50/filters:stretch()", image)
        #expect(fitted.width == 50 && fitted.height == 25, "fit-in ignores stretch, as thumbor does")
    }
}
