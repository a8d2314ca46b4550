import Foundation
import Synchronization
import Testing
import WebImage
@testable import WebImageServer

private func processor(_ options: String) throws -> ThumborProcessor {
    ThumborProcessor(path: try ThumborPath(parsing: "/unsafe/\(options)/example.com/a.png"))
}

private func maker(_ options: String, requestBytes: Int) throws -> VariantMaker {
    let processor = try processor(options)
    return VariantMaker(processor: processor, output: try processor.output(),
                        limits: .init(sourcePixels: 50_000_000, outputPixels: 25_000_000, animationBytes: 256 << 20,
                                      requestBytes: requestBytes),
                        coders: .shared)
}

/// A tiny PNG: a few hundred bytes that a request may ask to blow up to the output limit.
private let tinyPNG: Data = try! PNGCoder().encode(
    Image(bitmap: Fixtures.solid(RGBA(r: 200, g: 10, b: 10, a: 255), width: 8, height: 8)), as: .png, options: ImageEncodeOptions())

/// JPEG's encoder, counting its encodes.
private final class EncodeCount: Sendable {
    let value = Mutex(0)
}

private struct CountingJPEGCoder: ImageCoder {
    let count: EncodeCount
    let jpeg = JPEGCoder()
    func canDecode(_ data: Data) -> Bool { jpeg.canDecode(data) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { try jpeg.decode(data, options: options) }
    func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        count.value.withLock { $0 += 1 }
        return try jpeg.encode(image, as: format, options: options)
    }
    func header(of data: Data) throws -> ImageHeader { try jpeg.header(of: data) }
    func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int { jpeg.decodingCost(of: header, options: options) }
}

@Suite("webimage serve: what a request may cost")
struct CostPlanTests {
    @Test("filter arguments parse by thumbor's grammar and never trap: malformed ones refuse an encoder setting (400) and leave a pixel filter out",
          arguments: ["", "|", "|,0,0,0", ",0,0,0", "a|b,0,0,0", "1|,0,0,0", "|1,0,0,0", "99999999999999999999,0,0,0", "-5", "1e308",
                      "1.", ".", "-", "1|2|3,4,5,6", "5,0,0", "5,0,0,0,1,extra", "5,0,0,0", "5|7,1,2,3,True", "0,0,0,0", "nan", "inf", "0x10", "\u{0}", "１２"])
    func filterArgumentsNeverTrap(_ arguments: String) throws {
        for row in FilterTable.rows {
            let filter = "\(row.name)(\(arguments))"
            let path = try? ThumborPath(parsing: "/unsafe/40x40/filters:\(filter)/example.com/a.png")
            guard let path else { continue }
            let processor = ThumborProcessor(path: path)
            _ = try? processor.output()
            _ = processor.steps(decoded: PixelSize(width: 40, height: 40), oriented: false, source: PixelSize(width: 40, height: 40))
        }
        // The fleet-wide crash: a round_corner with no radius before its `|`. Applied exactly when
        // thumbor's own pattern matches with a radius above 0.
        let crash = try processor("40x40/filters:round_corner(\(arguments))")
        let applied = crash.steps(decoded: PixelSize(width: 40, height: 40), oriented: false, source: PixelSize(width: 40, height: 40))
            .contains { $0.name == "round_corner" }
        let pattern = /([0-9]{1,9})(\|[0-9]{1,9})?,[0-9]{1,9},[0-9]{1,9},[0-9]{1,9}(,(?i:true|false|1|0))?/
        let expected = arguments.wholeMatch(of: pattern).map { Int($0.1)! > 0 } ?? false
        #expect(applied == expected)
    }

    @Test("the argument grammar: numbers, decimals, booleans and radii as thumbor's BaseFilter types read them")
    func grammar() {
        #expect(FilterArgument.number.parse("-12") == .integer(-12))
        #expect(FilterArgument.positiveNumber.parse("-12") == nil)
        #expect(FilterArgument.number.parse("1234567890") == nil, "more digits than any size needs")
        #expect(FilterArgument.decimal.parse("2.5") == .decimal(2.5))
        #expect(FilterArgument.decimal.parse(".5") == .decimal(0.5))
        #expect(FilterArgument.decimal.parse("5.") == .decimal(5))
        #expect(FilterArgument.decimal.parse("1e3") == nil)
        #expect(FilterArgument.decimal.parse("nan") == nil)
        #expect(FilterArgument.decimal.parse(".") == nil)
        #expect(FilterArgument.boolean.parse("True") == .boolean(true))
        #expect(FilterArgument.boolean.parse("0") == .boolean(false))
        #expect(FilterArgument.radii.parse("10|20") == .radii(10, 20))
        #expect(FilterArgument.radii.parse("10") == .radii(10, 10))
        #expect(FilterArgument.radii.parse("|") == nil)
        #expect(FilterArgument.radii.parse("") == nil)
        #expect(FilterArgument.radii.parse("1|2|3") == nil)
    }

    @Test("round_corner with an empty radius is left out (thumbor's regex does not match it), and the variant is made")
    func roundCornerWithoutRadius() async throws {
        for arguments in ["|,0,0,0", ",0,0,0"] {
            let made = try await maker("4x4/filters:round_corner(\(arguments))", requestBytes: 1 << 30).make(from: tinyPNG, accept: "image/png")
            #expect(try ImageCodersManager.shared.decode(made.data).pixelSize == PixelSize(width: 4, height: 4))
        }
    }

    @Test("a tiny source asked at the output limit with blur(150) is planned before any pixel: over the request's cap it is a 413")
    func blurBombPlanned() throws {
        let bomb = try maker("5000x5000/filters:blur(150)", requestBytes: 512 << 20)
        #expect(throws: ServerFailure.overMemoryBudget) { try bomb.plan(tinyPNG, accept: "image/png") }
        let plan = try maker("5000x5000/filters:blur(150)", requestBytes: .max).plan(tinyPNG, accept: "image/png").plan
        // The upscaled bitmap, the blur's float plane and its result are alive together.
        #expect(plan.peakBytes >= 25_000_000 * (4 + 16 + 4))
        #expect(plan.peakStage?.name == "blur")
        // The same size without the blur fits a smaller cap.
        #expect(try maker("5000x5000", requestBytes: 512 << 20).plan(tinyPNG, accept: "image/png").plan.peakBytes < 512 << 20)
        // Written as AVIF, the encoder's own buffers are what the plan is paying for.
        let avif = try maker("5000x5000", requestBytes: .max).plan(tinyPNG, accept: "image/avif").plan
        #expect(avif.peakStage?.name == "encode")
    }

    @Test("the filters' CPU work is planned too: a 25×25 convolution at the output limit is a 413 before any pixel, a small one is made")
    func convolutionWorkPlanned() throws {
        let kernel = Array(repeating: "1", count: 625).joined(separator: ";")
        let options = "5000x5000/filters:convolution(\(kernel),25,true)"
        var bomb = try maker(options, requestBytes: .max)
        bomb.limits.requestWork = ImageServerConfiguration().maxRequestWork
        #expect(throws: ServerFailure.overWorkBudget) { try bomb.plan(tinyPNG, accept: "image/png") }
        let plan = try maker(options, requestBytes: .max).plan(tinyPNG, accept: "image/png").plan
        #expect(plan.pixelPasses >= 25_000_000 * 625)
        var small = try maker("400x400/filters:convolution(\(kernel),25,true)", requestBytes: .max)
        small.limits.requestWork = ImageServerConfiguration().maxRequestWork
        #expect(try small.plan(tinyPNG, accept: "image/png").plan.pixelPasses < small.limits.requestWork)
    }

    @Test("every step is checked against the reservation on the sizes it really has: a budget below the plan stops the work with the step's bytes")
    func stepsEnforced() throws {
        let source = Image(bitmap: Fixtures.testCard(width: 64, height: 48))
        let processor = try processor("128x96/filters:blur(2):grayscale()")
        let steps = processor.steps(decoded: source.pixelSize, oriented: false, source: source.pixelSize)
        #expect(steps.map(\.name) == ["resize", "blur", "grayscale"])
        let needed = 128 * 96 * 4 + steps[1].cost.bytes(for: PixelSize(width: 128, height: 96), frames: 1)
        #expect(throws: OutputBudget.Exceeded.self) {
            try processor.process(source, budget: OutputBudget(pixels: .max, animationBytes: .max, bytes: needed - 1))
        }
        let made = try processor.process(source, budget: OutputBudget(pixels: .max, animationBytes: .max, bytes: needed))
        #expect(made?.pixelSize == PixelSize(width: 128, height: 96))
    }

    @Test("the plan bounds the bitmaps the work really makes, stage by stage", arguments: ["200x150", "fit-in/300x300", "40x40/filters:blur(3)", "0x0/filters:rotate(90)", "trim/100x0"])
    func planBoundsTheWork(_ options: String) async throws {
        let data = try JPEGCoder().encode(Image(bitmap: Fixtures.testCard(width: 400, height: 300)), as: .jpeg, options: ImageEncodeOptions(quality: 0.9))
        let maker = try maker(options, requestBytes: .max)
        let planned = try maker.plan(data, accept: "image/png")
        let decodedPeak = data.count + CostPlan.bitmapBytes(
            try ImageCodersManager.shared.decode(data, options: planned.options).pixelSize, frames: 1)
        #expect(planned.plan.peakBytes >= decodedPeak)
        // The work runs under a budget of exactly the reservation; it never trips.
        let made = try await maker.make(planned, accept: "image/png")
        #expect(!made.data.isEmpty)
    }

    @Test("max_bytes searches for the quality in a bounded number of encodes, even when nothing fits")
    func maxBytesBounded() throws {
        let count = EncodeCount()
        let coders = ImageCodersManager(coders: [CountingJPEGCoder(count: count)])
        let image = Image(bitmap: Fixtures.testCard(width: 256, height: 256))
        for limit in [1, 2_000, 6_000, 1 << 30] {
            count.value.withLock { $0 = 0 }
            let data = try VariantMaker.encode(image, as: .jpeg, output: .init(format: .jpeg, quality: 90, maxBytes: limit), coders: coders)
            #expect(count.value.withLock { $0 } <= VariantMaker.maxBytesAttempts)
            let smallest = try coders.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: Double(VariantMaker.minimumSearchQuality) / 100))
            if smallest.count <= limit { #expect(data.count <= limit, "a quality that fits exists: the answer fits") }
        }
    }

    @Test("admission holds the planned bytes: a request waits for its share, in order, and one whose deadline passes leaves the queue at once")
    func admissionByBytes() async throws {
        let admission = WorkAdmission(width: 4, queueLimit: 8, memoryBytes: 100)
        let first = Flag(), release = Flag()
        let holder = Task {
            try await admission.run(bytes: 60) {
                first.raise()
                while !release.isRaised { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        #expect(await eventually { first.isRaised })
        // 60 + 60 > 100: the second waits although a slot is free.
        let second = Task { try await admission.run(bytes: 60) { 2 } }
        #expect(await eventually { admission.counts.waiting == 1 })
        // A small one behind it does not overtake it.
        let third = Task { try await admission.run(bytes: 10) { 3 } }
        #expect(await eventually { admission.counts.waiting == 2 })
        #expect(admission.counts.running == 1)
        // Cancelled (its deadline), the second leaves at once; the third, which fits, runs.
        second.cancel()
        await #expect(throws: WorkAdmission.Refusal.cancelled) { try await second.value }
        #expect(try await third.value == 3)
        release.raise()
        try await holder.value
        #expect(admission.counts.reservedBytes == 0)
        // One request larger than the whole budget still runs, alone.
        #expect(try await admission.run(bytes: 1_000) { 4 } == 4)
    }
}
