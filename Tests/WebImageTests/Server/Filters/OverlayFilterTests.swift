import Foundation
import Testing
import WebImage
@testable import WebImageServer

private func processed(_ options: String, _ image: Image, overlays: [String: Image] = [:]) throws -> Image {
    let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/\(options)/example.com/a.png"))
    return try #require(try processor.process(image, overlays: overlays))
}

private let base = RGBA(r: 100, g: 150, b: 200)
private let ink = RGBA(r: 200, g: 0, b: 100)
private let red = RGBA(r: 255, g: 0, b: 0)
private let plain = compositionImage(20, 20) { _, _ in base }
private let mark = ["wm": compositionImage(4, 4) { _, _ in ink }]

/// A PNG that declares `width`×`height` RGBA pixels and holds none (a header to plan from).
func declaredPNG(width: UInt32, height: UInt32) -> Data {
    func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
    func be(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return be(UInt32(body.count)) + typed + be(crc(typed))
    }
    let header = be(width) + be(height) + [8, 6, 0, 0, 0]
    // An empty zlib stream: the data ends at once.
    let idat: [UInt8] = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]
    return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", []))
}

@Suite("thumbor's watermark and frame, pixel for pixel")
struct OverlayFilterTests {
    @Test("watermark(url,2,3,50) merges the watermark, alpha lowered by half, at (2,3): thumbor's _alpha and _composite bytes")
    func watermarkAtOffset() throws {
        let out = try processed("filters:watermark(wm,2,3,50)", plain, overlays: mark)
        // _alpha: 255 − 255·50/100 = 128; _composite of (200,0,100,128) over (100,150,200,255) = (150,74,149,255).
        #expect(out.bitmap[2, 3] == RGBA(r: 150, g: 74, b: 149) && out.bitmap[5, 6] == RGBA(r: 150, g: 74, b: 149))
        #expect(out.bitmap[1, 3] == base && out.bitmap[6, 3] == base && out.bitmap[2, 2] == base && out.bitmap[2, 7] == base)
    }

    @Test("watermark over a half-transparent image: thumbor's merge of both alphas")
    func watermarkMergesAlphas() throws {
        let glass = compositionImage(2, 2) { _, _ in RGBA(r: 100, g: 150, b: 200, a: 128) }
        let out = try processed("filters:watermark(wm,0,0,0)", glass, overlays: ["wm": compositionImage(1, 1) { _, _ in RGBA(r: 200, g: 0, b: 100, a: 200) }])
        #expect(out.bitmap[0, 0] == RGBA(r: 187, g: 18, b: 112, a: 227), "thumbor.ext.filters._composite's bytes")
        #expect(out.bitmap[1, 1] == RGBA(r: 100, g: 150, b: 200, a: 128))
    }

    @Test("watermark positions: -0 is flush right/bottom, center, percentages (Np, -Np)")
    func watermarkPositions() throws {
        let corner = try processed("filters:watermark(wm,-0,-0,0)", plain, overlays: mark)
        #expect(corner.bitmap[16, 16] == ink && corner.bitmap[19, 19] == ink && corner.bitmap[15, 15] == base)
        let centred = try processed("filters:watermark(wm,center,center,0)", plain, overlays: mark)
        #expect(centred.bitmap[8, 8] == ink && centred.bitmap[11, 11] == ink && centred.bitmap[7, 7] == base && centred.bitmap[12, 12] == base)
        // 10p of 20 = 2; -10p = 2 from the bottom: 20 − 4 − 2 = 14.
        let percent = try processed("filters:watermark(wm,10p,-10p,0)", plain, overlays: mark)
        #expect(percent.bitmap[2, 14] == ink && percent.bitmap[5, 17] == ink && percent.bitmap[2, 13] == base && percent.bitmap[6, 17] == base)
    }

    @Test("watermark repeat tiles divmod(side, tile) times; fewer than two fit: one, then 10 px on")
    func watermarkRepeat() throws {
        let wide = compositionImage(22, 8) { _, _ in base }
        let row = try processed("filters:watermark(wm,repeat,0,0)", wide, overlays: mark)
        // divmod(22, 4) = (5, 2): tiles at 0, 4, 8, 12, 16 (2 // 4 = 0 between).
        #expect(row.bitmap[0, 0] == ink && row.bitmap[19, 3] == ink && row.bitmap[20, 0] == base && row.bitmap[0, 4] == base)
        let grid = try processed("filters:watermark(wm,repeat,repeat,0)", plain, overlays: mark)
        #expect(grid.bitmap[0, 0] == ink && grid.bitmap[19, 19] == ink && grid.bitmap[10, 10] == ink)
    }

    @Test("watermark w_ratio/h_ratio scale it to a share of the image; a huge ratio costs only what shows")
    func watermarkRatios() throws {
        let half = try processed("filters:watermark(wm,0,0,0,50,none)", plain, overlays: mark)
        #expect(half.bitmap[9, 9] == ink && half.bitmap[10, 10] == base && half.bitmap[10, 0] == base)
        let huge = try processed("filters:watermark(wm,0,0,0,999999999,none)", plain, overlays: mark)
        #expect(huge.width == 20 && huge.bitmap[0, 0] == ink && huge.bitmap[19, 19] == ink)
        let tiledHuge = try processed("filters:watermark(wm,repeat,repeat,0,999999999,999999999)", plain, overlays: mark)
        #expect(tiledHuge.bitmap[19, 19] == ink)
    }

    @Test("watermark arguments outside thumbor's grammar make the filter ignored; without its image it draws nothing")
    func watermarkArguments() throws {
        for options in ["filters:watermark(wm,left,0,0)", "filters:watermark(wm,0,0,-5)", "filters:watermark(wm,0,0,0,-10,none)",
                        "filters:watermark(wm,0,0)", "filters:watermark(wm,1234567890,0,0)"] {
            #expect(try processed(options, plain, overlays: mark).bitmap[0, 0] == base, "\(options)")
        }
        #expect(try processed("filters:watermark(other,0,0,0)", plain, overlays: mark).bitmap[0, 0] == base)
        let processor = ThumborProcessor(path: try ThumborPath(parsing:
            "/unsafe/filters:watermark(a.com/w.png,0,0,0):frame('b.com/f.png'):watermark(a.com/w.png,1,1,0):watermark(c.com/x.png,left,0,0)/s.com/a.png"))
        #expect(processor.overlaySources == ["a.com/w.png", "b.com/f.png"], "in order, once each, only filters that parse")
    }

    @Test("frame(url) pads by the nine-patch's content padding and draws its cells: corners fixed, edges stretched, centre clear")
    func frameNinePatch() throws {
        let black = RGBA(r: 0, g: 0, b: 0), clear = RGBA(r: 0, g: 0, b: 0, a: 0)
        let blue = RGBA(r: 0, g: 0, b: 255), green = RGBA(r: 0, g: 255, b: 0)
        // 5×5: stretchy column 2 and row 2 (top, left marks), content column 2 and row 2 (bottom, right marks).
        let patch = compositionImage(5, 5) { x, y in
            if (x == 2 && (y == 0 || y == 4)) || (y == 2 && (x == 0 || x == 4)) { return black }
            if x == 0 || y == 0 || x == 4 || y == 4 { return clear }
            if x == 2 && y == 2 { return clear }
            return x == 2 || y == 2 ? green : blue
        }
        let out = try processed("filters:frame(np)", compositionImage(10, 10) { _, _ in red }, overlays: ["np": patch])
        #expect(out.width == 12 && out.height == 12, "padding 1 on every side")
        #expect(out.bitmap[0, 0] == blue && out.bitmap[11, 0] == blue && out.bitmap[0, 11] == blue && out.bitmap[11, 11] == blue)
        #expect(out.bitmap[5, 0] == green && out.bitmap[0, 5] == green && out.bitmap[11, 6] == green && out.bitmap[6, 11] == green)
        #expect(out.bitmap[1, 1] == red && out.bitmap[10, 10] == red && out.bitmap[5, 5] == red)
        let unframed = try processed("filters:frame(missing)", compositionImage(10, 10) { _, _ in red }, overlays: ["np": patch])
        #expect(unframed.width == 10)
    }

    @Test("an overlay over the source pixel limit — a 50 MP watermark — or whose decode would not fit the request is a 413 before any work")
    func overlayBounded() throws {
        let png = try ImageCodersManager.shared.encode(compositionImage(8, 8) { _, _ in base }, as: .png)
        func maker(_ options: String, sourcePixels: Int = 50_000_000, requestBytes: Int = .max) throws -> VariantMaker {
            let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/\(options)/example.com/a.png"))
            return VariantMaker(processor: processor, output: try processor.output(),
                                limits: .init(sourcePixels: sourcePixels, outputPixels: 25_000_000, animationBytes: 1 << 28,
                                              requestBytes: requestBytes), coders: .shared)
        }
        let fifty = declaredPNG(width: 7100, height: 7100)
        #expect(throws: ServerFailure.tooLarge) { try maker("filters:watermark(w,0,0,0)").plan(png, accept: nil, overlays: ["w": fifty]) }
        #expect(throws: ServerFailure.tooLarge) { try maker("filters:frame(f)").plan(png, accept: nil, overlays: ["f": fifty]) }
        let twenty = declaredPNG(width: 5000, height: 4000)
        #expect(throws: ServerFailure.overMemoryBudget) {
            try maker("filters:watermark(w,0,0,0)", requestBytes: 64 << 20).plan(png, accept: nil, overlays: ["w": twenty])
        }
        let planned = try maker("filters:watermark(w,0,0,0)", requestBytes: 1 << 30).plan(png, accept: nil, overlays: ["w": twenty])
        #expect(planned.plan.stages.first?.name == "overlays" && planned.plan.peakBytes > 80_000_000, "its 80 MB bitmap is planned")
    }

    @Test("frame is planned at the largest padding its nine-patch's header allows, so the filters after it are planned on that size")
    func framePlannedAtItsLargest() throws {
        let png = try ImageCodersManager.shared.encode(compositionImage(10, 10) { _, _ in base }, as: .png)
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/10x10/filters:frame(f):grayscale()/example.com/a.png"))
        var maker = VariantMaker(processor: processor, output: try processor.output(),
                                 limits: .init(sourcePixels: 50_000_000, outputPixels: 25_000_000, animationBytes: 1 << 28), coders: .shared)
        let patch = declaredPNG(width: 3002, height: 3002)
        let plan = try maker.plan(png, accept: nil, overlays: ["f": patch]).plan
        #expect(plan.largestSize == PixelSize(width: 3010, height: 3010))
        // Its work is planned on that size too: a cap between the two sizes' work refuses it before any pixel.
        maker.limits.requestWork = 1_000_000
        #expect(throws: ServerFailure.overWorkBudget) { try maker.plan(png, accept: nil, overlays: ["f": patch]) }
    }

    @Test("the work cap holds while the steps run, on the sizes they really have")
    func workCheckedWhileRunning() throws {
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/filters:grayscale():grayscale():grayscale()/example.com/a.png"))
        let image = compositionImage(100, 100) { _, _ in base }
        var budget = OutputBudget.unlimited
        budget.pixelPasses = 25_000
        #expect(throws: OutputBudget.Exceeded.self) { try processor.process(image, budget: budget) }
        budget.pixelPasses = 30_000
        #expect(try processor.process(image, budget: budget) != nil)
    }
}
