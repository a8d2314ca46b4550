import CWebImageShims
import Foundation
import Glibc
import Synchronization
import Testing
@testable import WebImage

/// The decode plan (`decodingCost`) bounds what decoders allocate, and decoders keep to it:
/// `maxDecodeBytes` refuses before allocating, `maxProgressiveScans` stops scan bombs in libjpeg.
@Suite(.onOwnThreads) struct DecodeCostTests {
    /// Every built-in coder and HEIF (opt-in elsewhere).
    static let manager: ImageCodersManager = {
        let manager = ImageCodersManager()
        manager.addCoder(HEIFCoder())
        return manager
    }()

    static let formatFixtures = [
        "jpeg-baseline.jpg", "jpeg-progressive.jpg", "jpeg-cmyk.jpg", "jpeg-gray.jpg", "jpeg-orientation6.jpg",
        "colour-displayp3.jpg", "png-rgba.png", "png-16bit.png", "png-interlaced.png", "png-palette-trns.png",
        "colour-adobergb.png", "apng-pillow-basic.png", "apng-pillow-ops.png", "gif-pillow-animated.gif",
        "gif-pillow-interlaced.gif", "webp-lossy.webp", "webp-lossless.webp", "webp-alpha.webp", "webp-animated.webp",
        "colour-displayp3.webp", "avif-rgb.avif", "avif-10bit-alpha.avif", "avif-sequence.avif", "colour-displayp3.avif",
        "jxl-lossy.jxl", "jxl-lossless-alpha.jxl", "jxl-animated.jxl", "jxl-16bit.jxl", "colour-displayp3.jxl",
        "heic-rgb.heic", "heic-alpha.heic", "cost-solid-1024.avif", "cost-solid-1024.jxl", "cost-progressive-190scans.jpg",
    ]

    @Test("the plan covers the decoded frames, full size and thumbnail, and the decode fits a budget of exactly the plan",
          arguments: formatFixtures)
    func planCoversDecodedBitmaps(_ name: String) throws {
        let data = try Fixtures.data(name)
        let header = try Self.manager.header(of: data)
        for box in [nil, PixelSize(width: 16, height: 16)] {
            var options = ImageDecodeOptions(thumbnailPixelSize: box)
            let planned = Self.manager.decodingCost(of: header, options: options)
            options.maxDecodeBytes = planned
            let image = try Self.manager.decode(data, options: options)
            #expect(planned >= image.cost, "\(name) at \(String(describing: box)): planned \(planned) < bitmaps \(image.cost)")
        }
    }

    @Test func progressiveJPEGPlansItsCoefficientArrays() throws {
        let baseline = try JPEGCoder().header(of: Fixtures.data("jpeg-baseline.jpg"))
        let progressive = try JPEGCoder().header(of: Fixtures.data("jpeg-progressive.jpg"))
        #expect(baseline.pixelSize == progressive.pixelSize)
        #expect(progressive.isProgressive && !baseline.isProgressive)
        let options = ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8))
        let coefficients = JPEGDecodingCost.libjpeg(progressive) - JPEGDecodingCost.libjpeg(baseline)
        // 48×32 at 4:2:0: 6×4 luma blocks and 3×2 per chroma plane, 128 bytes each (less the MCU
        // buffer; the saved markers differ with the file sizes).
        #expect(coefficients == (24 + 6 + 6) * 128 - 2048 + 2 * (progressive.dataSize - baseline.dataSize))
        #expect(Self.manager.decodingCost(of: progressive, options: options) > Self.manager.decodingCost(of: baseline, options: options))
    }

    @Test func scanBombIsRefusedUnderAScanCap() throws {
        let data = try Fixtures.data("cost-progressive-190scans.jpg")
        #expect(throws: ImageCoderError.tooManyScans(limit: 20)) {
            try JPEGCoder().decode(data, options: ImageDecodeOptions(maxProgressiveScans: 20))
        }
        #expect(try JPEGCoder().decode(data, options: ImageDecodeOptions(maxProgressiveScans: 190)).pixelSize == PixelSize(width: 64, height: 48))
        #expect(try JPEGCoder().decode(data).pixelSize == PixelSize(width: 64, height: 48))
        // The error says what to change.
        #expect(ImageCoderError.tooManyScans(limit: 20).description.contains("20"))
    }

    @Test("a large image that is tiny on disk is refused under a small budget, before decoding",
          arguments: ["cost-solid-8000.png", "cost-solid-8000.jxl", "cost-solid-1024.avif", "cost-solid-1024.jxl", "heic-rgb.heic"])
    func largeImageRefusedUnderSmallBudget(_ name: String) throws {
        let data = try Fixtures.data(name)
        let header = try Self.manager.header(of: data)
        let options = ImageDecodeOptions(maxPixelCount: .max, maxDecodeBytes: 1 << 20)
        let planned = Self.manager.decodingCost(of: header, options: options)
        #expect(planned > Cost.rgba(header.pixelSize))
        #expect(throws: ImageCoderError.decodeBudgetExceeded(planned: planned, limit: 1 << 20)) {
            try Self.manager.decode(data, options: options)
        }
    }

    @Test func largeJPEGRefusedUnderSmallBudgetAndDecodedUnderItsPlan() throws {
        let data = try JPEGCoder().encode(Image(bitmap: Fixtures.solid(RGBA(r: 30, g: 120, b: 200, a: 255), width: 2000, height: 1500)),
                                          options: ImageEncodeOptions(progressive: true))
        let header = try JPEGCoder().header(of: data)
        #expect(header.isProgressive)
        let small = ImageDecodeOptions(maxDecodeBytes: 4 << 20)
        #expect(throws: ImageCoderError.decodeBudgetExceeded(planned: JPEGCoder().decodingCost(of: header, options: small), limit: 4 << 20)) {
            try JPEGCoder().decode(data, options: small)
        }
        for box in [nil, PixelSize(width: 100, height: 100)] {
            var options = ImageDecodeOptions(thumbnailPixelSize: box)
            options.maxDecodeBytes = JPEGCoder().decodingCost(of: header, options: options)
            #expect(try JPEGCoder().decode(data, options: options).pixelSize == (box == nil ? header.pixelSize : PixelSize(width: 100, height: 75)))
        }
    }

    /// libjpeg's own count: with `max_memory_to_use` below the coefficient arrays a progressive
    /// file needs, libjpeg (no backing store) fails inside the setjmp trap; at the planned share
    /// it succeeds — so the plan bounds what libjpeg allocates for them.
    @Test func libjpegKeepsToItsShare() throws {
        let data = try JPEGCoder().encode(Image(bitmap: Fixtures.testCard(width: 1024, height: 768)),
                                          options: ImageEncodeOptions(progressive: true))
        let header = try JPEGCoder().header(of: data)
        let share = JPEGDecodingCost.libjpeg(header)
        func start(maxMemory: Int) -> (status: Int32, limit: Int32) {
            data.withUnsafeBytes { raw in
                let decoder = wi_jpeg_decoder_create(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count)!
                defer { wi_jpeg_decoder_destroy(decoder) }
                var info = wi_jpeg_header()
                guard wi_jpeg_read_header(decoder, &info) == 0 else { return (-2, 0) }
                wi_jpeg_set_limits(decoder, maxMemory, 0)
                var w: UInt32 = 0, h: UInt32 = 0
                let status = wi_jpeg_start(decoder, 8, 0, &w, &h)
                return (status, status == 0 ? 0 : wi_jpeg_limit_hit(decoder))
            }
        }
        let refused = start(maxMemory: 1 << 20)
        #expect(refused.status == -1 && refused.limit == Int32(WI_JPEG_LIMIT_MEMORY))
        #expect(start(maxMemory: share).status == 0)
    }

    /// The plan against glibc's own count of allocated bytes, sampled while the decode runs — in a
    /// child process (this test binary, running only ``measuringChild()``): the sampler takes every
    /// arena's lock, and on a loaded machine it stalled every other suite's allocations for seconds.
    @Test("planned ≥ peak heap growth measured with mallinfo2",
          arguments: ["cost-solid-1024.jxl", "cost-solid-1024.avif"])
    func planBoundsMeasuredPeak(_ name: String) async throws {
        let header = try Self.manager.header(of: try Fixtures.data(name))
        let planned = Self.manager.decodingCost(of: header, options: ImageDecodeOptions())
        let measured = try await HeapPeak.measuredInChild(decoding: name)
        #expect(planned >= measured, "\(name): planned \(planned) < measured peak \(measured)")
    }

    /// Decodes the fixture ``HeapPeak/fixtureVariable`` names three times and prints the least peak
    /// heap growth (the other runs had something else of this process's allocating too).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[HeapPeak.fixtureVariable] != nil,
                   "only as the child of planBoundsMeasuredPeak"))
    func measuringChild() throws {
        let data = try Fixtures.data(try #require(ProcessInfo.processInfo.environment[HeapPeak.fixtureVariable]))
        var best = Int.max
        for _ in 0..<3 {
            best = min(best, try HeapPeak.measure { _ = try Self.manager.decode(data, options: ImageDecodeOptions()) })
        }
        print(HeapPeak.outputPrefix + String(best))
    }
}

/// Peak growth of glibc's allocated bytes (`uordblks + hblkhd`) while `body` runs, sampled by a
/// second thread.
enum HeapPeak {
    static let fixtureVariable = "WEBIMAGE_HEAP_PEAK_FIXTURE"
    static let outputPrefix = "HEAP-PEAK "

    /// ``DecodeCostTests/measuringChild()``'s answer for fixture `name`, from a process of its own.
    static func measuredInChild(decoding name: String) async throws -> Int {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "DecodeCostTests/measuringChild"]
        child.environment = ProcessInfo.processInfo.environment.merging([fixtureVariable: name]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        // Read while it runs (a full pipe would stop it); not waitUntilExit(), which holds a shared thread.
        let reader = output.fileHandleForReading
        let text = try await onOwnThread { String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) }
        while child.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let line = text.split(separator: "\n").first { $0.hasPrefix(outputPrefix) }
        return try #require(line.flatMap { Int($0.dropFirst(outputPrefix.count)) }, "the child printed no peak: \(text.suffix(2000))")
    }

    static func allocated() -> Int {
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
    }

    static func measure(_ body: () throws -> Void) throws -> Int {
        let state = SamplerState()
        let base = allocated()
        let sampler = Thread {
            while !state.done.withLock({ $0 }) {
                let now = allocated()
                state.peak.withLock { $0 = max($0, now) }
                usleep(50)
            }
        }
        sampler.start()
        defer { state.done.withLock { $0 = true } }
        try body()
        state.peak.withLock { $0 = max($0, allocated()) }
        state.done.withLock { $0 = true }
        while !sampler.isFinished { usleep(100) }
        return max(0, state.peak.withLock { $0 } - base)
    }

    final class SamplerState: Sendable {
        let done = Mutex(false)
        let peak = Mutex(0)
    }
}
