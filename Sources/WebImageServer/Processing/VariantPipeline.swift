import Foundation
import Logging
import WebImage

/// One image request's steps, in order: **parse** and **authorise** the path (``RequestAuthorizer``,
/// remembered in ``CheckedRequests``), look the variant up in the result cache, else **share** the
/// work with every request asking for it at once (``SharedTasks``), fetch the source through any
/// `ImageLoader` (by WebImage's manager), plan the variant and **admit** it by its planned bytes
/// (``WorkAdmission``), **make** it (``VariantMaker``) and **store** it in any ``ResultCaching``.
/// Failures are ``ServerFailure`` values, never sentences to classify.
final class VariantPipeline: Sendable {
    /// A checked request: its thumbor path, source, encoder settings and result-cache key.
    struct Request: Sendable {
        var path: ThumborPath
        var source: URL
        var output: ThumborProcessor.Output
        var key: String
    }

    let configuration: ImageServerConfiguration
    let authorizer: RequestAuthorizer
    /// Sources: WebImage's manager over the server's loader and source cache.
    let manager: ImageManager
    /// The source cache, whose disk tier keeps the source's `Last-Modified` with its bytes.
    let sourceCache: ImageCache?
    let results: any ResultCaching
    let admission: WorkAdmission
    /// Identical requests at once share one piece of work (100 cold requests for one variant → one
    /// encode); it finishes, for the result cache, even when every caller has gone.
    let sharedWork: SharedTasks<String, Void, Result<CachedResult, ServerFailure>>
    let metrics: ServerMetrics
    let coders: ImageCodersManager
    let logger: Logger
    private let checkedRequests = CheckedRequests()
    /// `smart`'s face and feature detection, its points kept per source (one for the process's pipeline).
    let smartDetector: SmartDetector

    init(configuration: ImageServerConfiguration, authorizer: RequestAuthorizer, manager: ImageManager, sourceCache: ImageCache?,
         results: any ResultCaching, admission: WorkAdmission, metrics: ServerMetrics, coders: ImageCodersManager, logger: Logger) {
        self.configuration = configuration
        smartDetector = SmartDetector(configuration: configuration.detection)
        self.authorizer = authorizer
        self.manager = manager
        self.sourceCache = sourceCache
        self.results = results
        self.admission = admission
        self.metrics = metrics
        self.coders = coders
        self.logger = logger
        sharedWork = SharedTasks(whenAbandoned: .keepRunning) { [metrics] in metrics.joined() }
    }

    // MARK: Parse and authorise

    /// `path` parsed, authorised and keyed (remembered: a warm hit skips all of it).
    func request(for path: String, accept: String?) throws(ServerFailure) -> Request {
        guard path.utf8.count <= ImageServer.maxPathBytes else { throw .pathTooLong }
        let memoKey = path + "\n" + (accept ?? "")
        if let known = checkedRequests.value(forKey: memoKey) { return known }
        let checked = try checkedRequest(path, accept: accept)
        checkedRequests.insert(checked, forKey: memoKey)
        return checked
    }

    private func checkedRequest(_ path: String, accept: String?) throws(ServerFailure) -> Request {
        let request = try authorizer.authorize(path).resolvingExtractFocal()
        let source = try SourceURL.parse(request.source)
        let output: ThumborProcessor.Output
        let processor = ThumborProcessor(path: request, logger: logger)
        do {
            output = try processor.output()
        } catch {
            throw .badRequest(error.description)
        }
        // Each image a filter draws is another download and decode: a path may name only a few.
        guard processor.overlaySources.count <= ThumborProcessor.maxOverlaySources else {
            throw .badRequest("at most \(ThumborProcessor.maxOverlaySources) images (watermark, frame) per request")
        }
        let negotiationKey = output.format == nil && !request.meta
            ? OutputFormat.negotiationKey(accept, encodable: coders.canEncode(to:)) : "-"
        let key = [request.canonicalOptions, negotiationKey, source.absoluteString].joined(separator: "|")
        return Request(path: request, source: source, output: output, key: key)
    }

    // MARK: Answer

    /// The variant for `variant`: from the result cache, or made (shared, admitted, stored).
    func result(for variant: Request, accept: String?) async throws(ServerFailure) -> CachedResult {
        if let hit = await results.result(forKey: variant.key) {
            // A hit answers on this task: no deadline, no shared work, no queue.
            metrics.cache("result")
            return hit
        }
        return try await shared(variant, accept: accept)
    }

    /// A variant not in the result cache: made once for every request asking at the same time.
    /// The work has one deadline, from its start: past it the work is cancelled — the source
    /// download, the wait for a slot and the processing between stages — and its slot freed; a
    /// request stops waiting at its own deadline (504) and the work goes on, within its deadline,
    /// for the others sharing it and for the cache.
    private func shared(_ variant: Request, accept: String?) async throws(ServerFailure) -> CachedResult {
        let deadline = configuration.requestDeadline
        let outcome: Result<CachedResult, ServerFailure> = await withDeadline(deadline, late: { .failure(.timeout) }) { [self] in
            // No value: this request was cut short (the deadline), which answers for it.
            await sharedWork.value(for: variant.key, member: ()) { [self] _ in
                await withDeadline(deadline, late: { .failure(.timeout) }) { [self] in
                    do {
                        return .success(try await make(variant, accept: accept))
                    } catch let failure as ServerFailure {
                        return .failure(failure)
                    } catch is CancellationError {
                        return .failure(.timeout)
                    } catch {
                        logger.error("unexpected failure", metadata: ["error": "\(error)"])
                        return .failure(.badGateway)
                    }
                }
            } ?? .failure(.timeout)
        }
        return try outcome.get()
    }

    /// `work` once admission has room for `bytes` more (the variant's planned peak).
    private func admitted<T: Sendable>(bytes: Int, _ work: () async throws -> T) async throws -> T {
        let queued = ContinuousClock.now
        do {
            // This request was taken in (its source fetched) before any drain: a drain lets it finish.
            return try await admission.run(bytes: bytes, started: true) {
                metrics.span("queue", .now - queued)
                return try await work()
            }
        } catch let refusal as WorkAdmission.Refusal {
            switch refusal {
            case .draining:
                metrics.refused("draining")
                throw ServerFailure.unavailable
            case .full:
                metrics.refused("busy")
                throw ServerFailure.busy
            case .cancelled:
                throw ServerFailure.timeout
            }
        }
    }

    /// Fetches (or finds) the source's bytes — outside the work slots: a slow origin holds a
    /// download, not a slot — then plans the variant (413 before any work when it cannot fit),
    /// and makes and stores it in a slot with its planned bytes reserved.
    func make(_ variant: Request, accept: String?) async throws -> CachedResult {
        // A drain turns new work away before its download; work that started before it finishes.
        guard !admission.isDraining else {
            metrics.refused("draining")
            throw ServerFailure.unavailable
        }
        let processor = ThumborProcessor(path: variant.path, logger: logger, smartDetector: smartDetector)
        // Watermark and frame images are sources like any other, fetched alongside it (loadOverlays).
        let drawn = try overlayURLs(processor.overlaySources)
        async let overlays = loadOverlays(drawn)
        let fetching = ContinuousClock.now
        let data = try await sourceData(variant.source)
        let fetched = ContinuousClock.now - fetching
        let overlayBytes = try await overlays
        try Task.checkCancellation()
        var maker = VariantMaker(
            processor: processor, output: variant.output,
            limits: VariantMaker.Limits(sourcePixels: configuration.maxSourcePixels,
                                        outputPixels: configuration.maxOutputPixels,
                                        animationBytes: configuration.maxAnimationBytes,
                                        requestBytes: configuration.maxRequestMemory,
                                        requestWork: configuration.maxRequestWork,
                                        progressiveScans: configuration.maxProgressiveScans),
            coders: coders)
        maker.defaults = configuration.output
        maker.smartDetector = smartDetector
        maker.sourceKey = variant.source.absoluteString
        let planning = ContinuousClock.now
        let planned = try maker.plan(data, accept: accept, overlays: overlayBytes)
        let format = planned.header.format.rawValue
        metrics.stage(.fetch, format: format, fetched)
        metrics.stage(.header, format: format, .now - planning)
        maker.recordStage = { [metrics] stage, elapsed in metrics.stage(stage, format: format, elapsed) }
        logger.debug("variant planned", metadata: [
            "planned": "\(planned.plan.peakBytes)", "reserved": "\(planned.reservation)", "stage": "\(planned.plan.peakStage?.name ?? "")",
        ])
        var result = try await admitted(bytes: planned.reservation) {
            let processingStarted = ContinuousClock.now
            defer { metrics.span("processing", .now - processingStarted) }
            return try await maker.make(planned, accept: accept)
        }
        result.lastModified = await sourceLastModified(variant.source)
        // Kept under its source and every image its filters drew: a purge of any of them removes it.
        let storing = ContinuousClock.now
        await results.store(result, forKey: variant.key, sources: [variant.source.absoluteString] + drawn.map(\.1.absoluteString))
        metrics.stage(.store, format: format, .now - storing)
        return result
    }

    /// The source's original bytes, from the source cache or the origin. Loads go through
    /// WebImage's manager with the structure-check coder: it shares one fetch among every variant
    /// asked for at once, checks the bytes (and the pixel limit) before they reach the disk cache,
    /// and decodes nothing, downloads and disk hits alike — each variant decodes at its own size.
    func sourceData(_ source: URL) async throws -> Data {
        var context = WebImageContext(maxPixelCount: configuration.maxSourcePixels)
        context.maxAnimationBytes = configuration.maxAnimationBytes
        // JPEG XL is checked by decoding it: held to what one request may cost.
        context.imageCoder = StructureCheckCoder(maxDecodeBytes: configuration.maxRequestMemory)
        context.queryCacheType = .disk
        context.storeCacheType = .disk
        let started = ContinuousClock.now
        let loaded: ImageResult
        // A fleet's shared tier is written before the shared load ends, so a peer's variant finds the
        // source there; the local disk orders reads after its pending write, so this request need not wait.
        let options: WebImageOptions = manager.imageCache is ImageCache ? [.retryFailed] : [.retryFailed, .waitStoreCache]
        do {
            loaded = try await manager.loadImage(with: source, options: options, context: context)
        } catch {
            logger.info("source failed", metadata: ["source": "\(source.host ?? "")", "error": "\(error)"])
            throw ServerFailure(error)
        }
        metrics.span("download", .now - started)
        metrics.cache(loaded.cacheType == .none ? "origin" : "source_disk")
        guard let data = loaded.data else { throw ServerFailure.badGateway }
        if loaded.cacheType == .none { metrics.fetched(bytes: data.count) }
        return data
    }

    /// The `Last-Modified` the origin sent with the source, kept with its bytes in the source cache.
    func sourceLastModified(_ source: URL) async -> String? {
        guard let sourceCache, let key = manager.cacheKey(for: source) else { return nil }
        return await sourceCache.storedValidators(forKey: key)?.lastModified
    }
}
