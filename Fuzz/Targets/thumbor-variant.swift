import Dispatch
import Foundation
import WebImage
@testable import WebImageServer

// Whole thumbor paths through the server's variant pipeline, in-process, on tiny built-in images. The input is
// a path (the bytes up to the first NUL; `unsafe/` and the source `example.com/a` added when missing) and, after
// the NUL, a byte choosing the image (`% images.count`) and the `Accept` header, and whether to run
// `VariantMaker.make` too. The path is parsed, its `ThumborProcessor` planned by `VariantMaker.plan`, and the
// work `make` does run here synchronously (decode, `process` with the planned budget, `encode`), so the variant
// itself is seen. Findings: a trap; an error other than ServerFailure, OutputBudget.Exceeded, ThumborPathError,
// CancellationError or ImageCoderError; a variant over the output pixel limit, over the plan's budget, larger
// than the plan's peak, not upright, or whose encoding decodes to another size; `make` disagreeing on success.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = Array(UnsafeRawBufferPointer(start: start, count: count))
    let cut = raw.firstIndex(of: 0) ?? raw.count
    var text = String(decoding: raw[..<cut], as: UTF8.self)
    if text.hasPrefix("/") { text.removeFirst() }
    if !text.hasPrefix("unsafe/") { text = "unsafe/" + text }
    if !text.contains("example.com") { text += text.hasSuffix("/") ? "example.com/a" : "/example.com/a" }
    let choice = cut + 1 < raw.count ? Int(raw[cut + 1]) : cut
    run(text, image: choice % images.count, accept: accepts[choice / images.count % accepts.count], alsoMake: choice & 0x80 != 0)
    return 0
}

let coders = ImageCodersManager.shared
let limits = VariantMaker.Limits(sourcePixels: 1_000_000, outputPixels: 250_000, animationBytes: 8 << 20, requestBytes: 64 << 20)
let accepts: [String?] = [nil, "image/webp,*/*", "image/avif,image/webp;q=0.9,*/*;q=0.8", "image/png;q=0.5, image/*;q=0"]

/// The sources, encoded once (kept as byte arrays: LeakSanitizer misses a global Data's tagged storage pointer and
/// reports it leaked): 7×5 RGBA with alpha (PNG), 16×9 opaque with a flat border (JPEG), a 3-frame 4×4
/// animation (GIF), 6×4 with EXIF orientation 6 (JPEG), 1×1 (PNG).
let images: [[UInt8]] = {
    func bitmap(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> [UInt8]) -> Bitmap {
        Bitmap(width: width, height: height, pixels: (0..<height).flatMap { y in (0..<width).flatMap { x in pixel(x, y) } })
    }
    func encode(_ image: Image, _ format: ImageFormat) -> Data {
        guard let data = try? coders.encode(image, as: format, options: ImageEncodeOptions(quality: 0.95)) else { fatalError("cannot make the \(format) fixture") }
        return data
    }
    let alpha = bitmap(7, 5) { x, y in [UInt8(x * 36), UInt8(y * 60), 200, UInt8([0, 255, 128, 255, 30][(x + y) % 5])] }
    let bordered = bitmap(16, 9) { x, y in (2..<14).contains(x) && (2..<7).contains(y) ? [UInt8(x * 16), 40, UInt8(y * 28), 255] : [255, 255, 255, 255] }
    let frames = (0..<3).map { frame in
        ImageFrame(bitmap: bitmap(4, 4) { x, y in [UInt8(frame * 120), UInt8(x * 60), UInt8(y * 60), 255] }, duration: 0.1)
    }
    let turned = bitmap(6, 4) { x, y in [UInt8(x * 40), UInt8(y * 60), 90, 255] }
    let images = [
        encode(Image(bitmap: alpha), .png),
        encode(Image(bitmap: bordered), .jpeg),
        encode(Image(frames: frames), .gif),
        withOrientation6(encode(Image(bitmap: turned), .jpeg)),
        encode(Image(bitmap: bitmap(1, 1) { _, _ in [10, 20, 30, 255] }), .png),
    ]
    precondition((try? coders.header(of: images[3]).orientation) == .right, "the EXIF fixture lost its orientation")
    precondition((try? coders.header(of: images[2]).frameCount) == 3, "the GIF fixture is not animated")
    return images.map { Array($0) }
}()

/// `jpeg` with an APP1 EXIF block (big-endian TIFF, one IFD entry: orientation = 6) right after SOI.
func withOrientation6(_ jpeg: Data) -> Data {
    let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
    let payload = Array("Exif\0\0".utf8) + tiff
    let length = payload.count + 2
    return jpeg.prefix(2) + Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
}

/// The errors the pipeline may end with; anything else is a finding.
func isExpected(_ error: any Error) -> Bool {
    error is ServerFailure || error is OutputBudget.Exceeded || error is ThumborPathError || error is CancellationError || error is ImageCoderError
}

func run(_ text: String, image index: Int, accept: String?, alsoMake: Bool) {
    let data = Data(images[index])
    let context = "path \(text.debugDescription), image \(index), accept \(accept ?? "none")"
    let maker: VariantMaker
    let planned: VariantMaker.Planned
    do {
        let processor = ThumborProcessor(path: try ThumborPath(parsing: text))
        maker = VariantMaker(processor: processor, output: try processor.output(), limits: limits, coders: coders)
        planned = try maker.plan(data, accept: accept)
    } catch {
        precondition(isExpected(error), "planning threw \(error) (\(type(of: error))): \(context)")
        return
    }
    var made: Data?
    do {
        made = try variant(maker, planned, accept: accept, context: context)
    } catch {
        precondition(isExpected(error), "the variant threw \(error) (\(type(of: error))): \(context)")
    }
    guard alsoMake else { return }
    // make() itself, driven to its end from this thread: it must agree on success and throw only expected errors.
    var run = MakeRun(maker: maker, planned: planned, accept: accept)
    let done = DispatchSemaphore(value: 0)
    Task { [run] in
        do { run.result = .success(try await run.maker.make(run.planned, accept: run.accept).data) } catch { run.result = .failure(error) }
        done.signal()
    }
    done.wait()
    // Until the task has let go of `run`: LeakSanitizer's per-input check would otherwise report the Data it holds.
    while !isKnownUniquelyReferenced(&run) { sched_yield() }
    switch run.result {
    case .success(let bytes)?: precondition(made != nil, "make() made \(bytes.count) bytes where the steps failed: \(context)")
    case .failure(let error)?:
        precondition(isExpected(error), "make() threw \(error) (\(type(of: error))): \(context)")
        precondition(made == nil, "make() threw \(error) where the steps made a variant: \(context)")
    case nil: fatalError("make() ended without a result: \(context)")
    }
}

/// One make() call's inputs and outcome, shared with its task (written by it before the semaphore is signalled).
final class MakeRun: @unchecked Sendable {
    let maker: VariantMaker
    let planned: VariantMaker.Planned
    let accept: String?
    var result: Result<Data, any Error>?

    init(maker: VariantMaker, planned: VariantMaker.Planned, accept: String?) {
        (self.maker, self.planned, self.accept) = (maker, planned, accept)
    }
}

/// The steps of `VariantMaker.make`, synchronously, with every promise about the variant checked.
func variant(_ maker: VariantMaker, _ planned: VariantMaker.Planned, accept: String?, context: String) throws -> Data? {
    let image = try coders.decode(planned.data, options: planned.options)
    precondition(image.cost <= planned.budget.bytes, "the decode (\(image.cost) bytes) is over the budget \(planned.budget.bytes): \(context)")
    let format = OutputFormat(requested: maker.output.format, accept: accept, source: image) { coders.canEncode(to: $0) }
    guard let variant = try maker.processor.process(image, sourceSize: planned.header.uprightSize, budget: planned.budget) else { return nil }
    let size = variant.pixelSize, frames = variant.frames.count
    precondition(size.pixelCount <= limits.outputPixels, "variant \(size) is over the output pixel limit: \(context)")
    precondition(variant.cost <= planned.budget.bytes, "variant (\(variant.cost) bytes) is over the budget \(planned.budget.bytes): \(context)")
    precondition(planned.plan.peakBytes >= CostPlan.bitmapBytes(size, frames: frames),
                 "plan peak \(planned.plan.peakBytes) is below the variant's bitmap \(size)×\(frames): \(context)")
    precondition(variant.orientation == .up, "variant leaves \(variant.orientation), not upright (no EXIF is written): \(context)")
    let encoder = EncoderCost.bytes(for: format.format, size: size, frames: frames, searching: maker.output.maxBytes != nil)
    try planned.budget.check(bytes: CostPlan.sum(variant.cost, encoder), size: size, frames: frames)
    let bytes = try VariantMaker.encode(variant, as: format.format, output: maker.output, coders: coders)
    _ = VariantMaker.etag(bytes)
    let back = try coders.decode(bytes)
    precondition(back.pixelSize == size, "\(format.format) output decodes to \(back.pixelSize), variant was \(size): \(context)")
    return bytes
}
