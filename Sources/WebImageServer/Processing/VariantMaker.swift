import Crypto
import Foundation
import WebImage

/// Makes one variant from a source's bytes in two halves. ``plan(_:)`` reads the header and
/// checks it before any pixel exists: the source pixel limit, the ``OutputBudget``'s sizes, and
/// the ``CostPlan``'s peak bytes against the per-request cap (413 past any). ``make(_:accept:)``
/// then runs, inside the bytes admission reserved for it: a decode at the smallest size the
/// variant needs on WebImage's decoding queue (the decoder held to the reservation), the thumbor
/// geometry and filters (each step checked against it again) and the encode on its processing
/// queue, stopping between stages once the request's deadline has cancelled it.
struct VariantMaker: Sendable {
    struct Limits: Sendable {
        var sourcePixels: Int
        var outputPixels: Int
        var animationBytes: Int
        /// The most one variant may have alive at once (``CostPlan/peakBytes``).
        var requestBytes: Int = .max
        /// The most pixel passes one variant's steps may plan (``CostPlan/pixelPasses``).
        var requestWork: Int = .max
        /// Scans of a progressive JPEG decoded at most.
        var progressiveScans: Int? = nil
    }

    /// A source checked and its cost planned: what ``make(_:accept:)`` needs.
    struct Planned: Sendable {
        let data: Data
        let header: ImageHeader
        var options: ImageDecodeOptions
        let plan: CostPlan
        var budget: OutputBudget
        /// The bytes admission reserves: the plan's peak with room for a decoder's rounding.
        var reservation: Int { min(CostPlan.sum(plan.peakBytes, plan.peakBytes / 8), limitBytes) }
        let limitBytes: Int
        /// The images `watermark` and `frame` draw, by URL as written (``planOverlays(_:)``).
        var overlays: [String: PlannedOverlay] = [:]
    }

    let processor: ThumborProcessor
    let output: ThumborProcessor.Output
    var limits: Limits
    let coders: ImageCodersManager
    /// Qualities, progressive JPEG and PNG-to-JPEG when the URL does not say.
    var defaults = OutputDefaults()
    /// Finds the focal points `smart` crops around; nil = no detection (the alignment places the crop).
    var smartDetector: SmartDetector? = nil
    /// The source's identity for ``smartDetector``'s cache (its URL): one detection per source.
    var sourceKey: String? = nil
    /// Told how long decode, transform and encode took (the server's stage metrics); nil = not timed.
    var recordStage: VariantStageRecorder? = nil

    /// Reads `data`'s header and plans the variant for a client whose `Accept` is `accept`;
    /// throws 413 for a source or a plan over a limit.
    func plan(_ data: Data, accept: String?, overlays: [String: Data] = [:]) throws(ServerFailure) -> Planned {
        let header: ImageHeader
        do { header = try coders.header(of: data) } catch { throw ServerFailure(decoding: error) }
        let stored = header.pixelSize
        if stored.width.multipliedReportingOverflow(by: stored.height).overflow || stored.pixelCount > limits.sourcePixels {
            throw .tooLarge
        }
        let source = header.uprightSize
        let sizes = OutputBudget(pixels: limits.outputPixels, animationBytes: limits.animationBytes)
        do { try sizes.check(processor.outputSize(forSource: source), frames: header.frameCount) } catch { throw .tooLarge }
        let box = processor.decodeBox(forSource: source)
        var options = ImageDecodeOptions(
            thumbnailPixelSize: box.map { header.orientation.swapsDimensions ? PixelSize(width: $0.size.height, height: $0.size.width) : $0.size },
            preserveAspectRatio: box?.keepsAspectRatio ?? true,
            maxPixelCount: limits.sourcePixels, maxAnimationBytes: limits.animationBytes)
        options.maxProgressiveScans = limits.progressiveScans
        let (plannedOverlays, overlayCost) = try planOverlays(overlays)
        let plan = CostPlan(header: header, sourceBytes: data.count, options: options,
                            decodeBytes: coders.decodingCost(of: header, options: options),
                            processor: processor,
                            formats: output.format.map { [$0] } ?? OutputFormat.candidates(accept, encodable: coders.canEncode(to:)),
                            maxBytes: output.maxBytes, overlays: overlayCost)
        do { try sizes.check(plan.largestSize, frames: header.frameCount) } catch { throw .tooLarge }
        guard plan.peakBytes <= limits.requestBytes else {
            processor.logger.info("variant over the request memory cap", metadata: [
                "planned": "\(plan.peakBytes)", "stage": "\(plan.peakStage?.name ?? "")", "cap": "\(limits.requestBytes)",
            ])
            throw .overMemoryBudget
        }
        guard plan.pixelPasses <= limits.requestWork else {
            processor.logger.info("variant over the request work cap", metadata: ["planned": "\(plan.pixelPasses)", "cap": "\(limits.requestWork)"])
            throw .overWorkBudget
        }
        var planned = Planned(data: data, header: header, options: options, plan: plan, budget: sizes, limitBytes: limits.requestBytes)
        planned.overlays = plannedOverlays
        // The decoder and every step are held to what admission reserves, less the source's bytes and the overlays'.
        let working = planned.reservation - CostPlan.sum(data.count, overlayCost.encodedBytes, overlayCost.heldBytes)
        planned.options.maxDecodeBytes = working
        planned.budget.bytes = working
        planned.budget.pixelPasses = limits.requestWork
        return planned
    }

    /// ``plan(_:)`` then ``make(_:accept:)``, with nothing reserved in between.
    func make(from data: Data, accept: String?, overlays: [String: Data] = [:]) async throws -> CachedResult {
        try await make(try plan(data, accept: accept, overlays: overlays), accept: accept)
    }

    /// The encoded variant, for a client whose `Accept` is `accept`.
    func make(_ planned: Planned, accept: String?) async throws -> CachedResult {
        let (coders, data, options, record) = (self.coders, planned.data, planned.options, self.recordStage)
        let cancellation = WorkCancellation()
        let overlays = try await decodeOverlays(planned.overlays, cancellation: cancellation)
        let decoded: Result<Image, any Error> = await cancellation.run {
            await ImageWorkQueue.decoding.run {
                do {
                    try cancellation.check()
                    let started = ContinuousClock.now
                    let image = try coders.decode(data, options: options)
                    record?(.decode, .now - started)
                    return .success(image)
                } catch is CancellationError {
                    return .failure(CancellationError())
                } catch {
                    return .failure(ServerFailure(decoding: error))
                }
            }
        }
        let image = try decoded.get()
        var detected: [FocalPoint] = []
        if processor.path.smart, let smartDetector, let sourceKey {
            detected = await cancellation.run {
                await smartDetector.focalPoints(in: image, sourceKey: sourceKey, sourceSize: planned.header.uprightSize)
            }
            try cancellation.check()
        }
        let focalPoints = detected
        let chosen = OutputFormat(requested: output.format, accept: accept, source: image) { coders.canEncode(to: $0) }
        let frameCount = planned.header.frameCount
        let (processor, output, budget, source, defaults) = (self.processor, self.output, planned.budget, planned.header.uprightSize, self.defaults)
        let encoded: Result<CachedResult, any Error> = await cancellation.run { await ImageWorkQueue.processing.run {
            do {
                try cancellation.check()
                let transforming = ContinuousClock.now
                guard let variant = try processor.process(image, sourceSize: source, budget: budget, focalPoints: focalPoints, overlays: overlays, isCancelled: { cancellation.isRaised }) else {
                    return .failure(ServerFailure.badRequest("the options cannot be applied to this image"))
                }
                record?(.transform, .now - transforming)
                try cancellation.check()
                if processor.path.meta {
                    return .success(processor.metaDocument(of: variant, source: source, frames: frameCount, detected: focalPoints).result)
                }
                let format = chosen.convertingOpaquePNG(variant, output: output, defaults: defaults)
                let encoder = EncoderCost.bytes(for: format.format, size: variant.pixelSize, frames: variant.frames.count, searching: output.maxBytes != nil)
                try budget.check(bytes: CostPlan.sum(variant.cost, encoder), size: variant.pixelSize, frames: variant.frames.count)
                return Result {
                    let encoding = ContinuousClock.now
                    let bytes = try Self.encode(variant, as: format.format, output: output, coders: coders, defaults: defaults, cancellation: cancellation)
                    record?(.encode, .now - encoding)
                    return CachedResult(data: bytes, contentType: format.contentType, etag: Self.etag(bytes), variesByAccept: format.negotiated)
                }
            } catch let exceeded as OutputBudget.Exceeded {
                return .failure(exceeded.pixelPasses != nil ? ServerFailure.overWorkBudget
                                    : exceeded.bytes == nil ? ServerFailure.tooLarge : ServerFailure.overMemoryBudget)
            } catch {
                return .failure(error)
            }
        } }
        return try encoded.get()
    }

    /// Encodes at the asked quality. With `max_bytes` (JPEG and WebP), a bounded search for the
    /// highest quality that fits: a guess from the first size, then halving the interval, at most
    /// ``maxBytesAttempts`` encodes; the smallest result when none fits.
    static func encode(
        _ image: Image, as format: ImageFormat, output: ThumborProcessor.Output, coders: ImageCodersManager,
        defaults: OutputDefaults = OutputDefaults(), cancellation: WorkCancellation = WorkCancellation()
    ) throws -> Data {
        func encoded(_ quality: Int) throws -> Data {
            try cancellation.check()
            guard let data = try? coders.encode(image, as: format, options: ImageEncodeOptions(quality: Double(quality) / 100, progressive: defaults.progressiveJPEG)) else {
                throw ServerFailure.badRequest("the image cannot be written as \(format.rawValue)")
            }
            return data
        }
        let requested = output.quality ?? defaults.quality(for: format)
        let first = try encoded(requested)
        guard let limit = output.maxBytes, first.count > limit, format == .jpeg || format == .webp else { return first }
        var (low, high) = (minimumSearchQuality, requested - 1)  // the answer lies in low...high, if anywhere
        var best: Data?
        var smallest = first
        // Size grows faster than linearly in quality near the top: the first guess scales by the square root.
        var guess = min(high, max(low, Int(Double(requested) * (Double(limit) / Double(first.count)).squareRoot())))
        for _ in 1..<maxBytesAttempts where low <= high {
            let data = try encoded(guess)
            if data.count < smallest.count { smallest = data }
            if data.count <= limit {
                best = data
                low = guess + 1
            } else {
                high = guess - 1
            }
            guess = (low + high) / 2
        }
        return best ?? smallest
    }

    /// Encodes per `max_bytes` request at most: thumbor's own loop re-encodes until it fits.
    static let maxBytesAttempts = 4
    static let minimumSearchQuality = 5

    /// A strong validator of the bytes themselves.
    static func etag(_ data: Data) -> String {
        let digest = SHA256.hash(data: data)
        return "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }
}
