import Foundation
import Hummingbird
import Logging
import Synchronization
import WebImage
import WebImageRedis

/// thumbor's HTTP API on the WebImage pipeline: sources through WebImage's manager (source cache of
/// original bytes, shared loads, typed errors, decode limits) with the server's ``SourceLoader``,
/// every hop checked and pinned; variants made by ``ThumborProcessor`` on WebImage's processing queue, encoded
/// by its coders, kept in a ``ResultCaching``. Add it to any Hummingbird router with
/// ``addRoutes(to:)``, or run it alone with `webimage serve`.
public final class ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let signer: URLSigner
    let sourceCache: ImageCache
    let manager: ImageManager
    let results: any ResultCaching
    /// This instance's own variants (``results`` also reads the shared tier when there is one).
    let localResults: any ResultCaching
    let sharedTier: SharedTier?
    private let purgeListener: Task<Void, Never>?
    let loader: SourceLoader
    let admission: WorkAdmission
    /// Identical requests at once share one piece of work (100 cold requests for one variant → one
    /// encode); it finishes, for the result cache, even when every caller has gone.
    let sharedWork: SharedTasks<String, Void, Result<CachedResult, ServerFailure>>
    let metrics = ServerMetrics()
    let coders: ImageCodersManager
    let logger: Logger
    /// Where this server listens (``serving(on:)``): sources there are refused.
    public let servingAddresses = ServingAddresses()

    /// A server with `configuration`; `resultCache` replaces the local one (a shared tier);
    /// `lookUp` replaces the source hosts' name service (c-ares, cached, with a deadline, by default).
    public init(
        configuration: ImageServerConfiguration, resultCache: (any ResultCaching)? = nil,
        logger: Logger = Logger(label: "WebImageServer"), lookUp: SourceResolver.Lookup? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        signer = URLSigner(keys: configuration.securityKeys)
        let directory = configuration.cacheDirectory ?? DiskCache.defaultDirectory(namespace: "server")
        var cacheConfig = ImageCacheConfig()
        cacheConfig.disk = DiskCacheConfig(maxDiskSize: configuration.maxCacheBytes)
        cacheConfig.memory = MemoryCacheConfig(costLimit: configuration.memoryCacheBytes, usesWeakCache: false)
        sourceCache = ImageCache(directory: directory.appendingPathComponent("sources"), config: cacheConfig)
        var downloads = DownloaderConfig()
        downloads.maximumResponseSize = configuration.maxSourceBytes
        downloads.downloadTimeout = configuration.sourceTimeout
        // A source that drips a byte before each idle timeout still ends: the whole download has a deadline.
        downloads.resourceTimeout = configuration.sourceDeadline
        // Downloads wait on the network, not the CPU: more of them than work slots, still bounded.
        downloads.maxConcurrentDownloads = max(16, configuration.concurrency * 4)
        downloads.additionalTrustedCertificateFiles = configuration.trustedCertificateFiles
        downloads.maximumRedirects = configuration.maxRedirects
        downloads.bodySpill = BodySpill(directory: directory.appendingPathComponent("sources/.incoming", isDirectory: true))
        // Marked, so a source request that comes back to an instance is refused (SourceRequestMark).
        downloads.httpHeaders[SourceRequestMark.field] = SourceRequestMark.value
        var resolver = SourceResolver(
            addressPolicy: AddressPolicy(allowsLoopback: configuration.allowLoopbackSources),
            allowedHosts: configuration.allowedSourceHosts, lookUp: lookUp)
        resolver.servingAddresses = servingAddresses
        loader = SourceLoader(config: downloads, resolver: resolver)
        localResults = resultCache ?? LocalResultCache(
            directory: directory.appendingPathComponent("results"), maxDiskBytes: configuration.maxCacheBytes,
            memoryBytes: configuration.memoryCacheBytes)
        sharedTier = configuration.redisURL.flatMap { url in
            do {
                return try SharedTier(url: url, callTimeout: configuration.redisCallTimeout, logger: logger)
            } catch {
                logger.error("shared tier off: \(error)")
                return nil
            }
        }
        if let sharedTier {
            manager = ImageManager(cache: sharedTier.sourceCaches(over: sourceCache), loader: loader)
            results = TieredResultCache(local: localResults, shared: sharedTier.results)
        } else {
            manager = ImageManager(cache: sourceCache, loader: loader)
            results = localResults
        }
        admission = WorkAdmission(width: configuration.concurrency, queueLimit: configuration.queueLimit,
                                  memoryBytes: configuration.maxMemory)
        sharedWork = SharedTasks(whenAbandoned: .keepRunning) { [metrics] in metrics.joined() }
        coders = .shared
        // Another instance's purge: drop this one's local copies (the shared tier is purged already).
        purgeListener = sharedTier?.purges.listen { [manager, sourceCache, localResults] source in
            guard let url = URL(string: source) else { return }
            _ = await localResults.removeResults(forSource: source)
            if let key = manager.cacheKey(for: url) { await sourceCache.removeImage(forKey: key, cacheType: .all) }
        }
    }

    /// The public face: `GET /healthz`, `GET /readyz` and thumbor's image paths (every other GET).
    /// The operator's routes are ``addAdminRoutes(to:)``'s, for a router on a private listener.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/healthz") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n"))) }
        router.get("/readyz") { [self] _, _ in
            admission.isReady
                ? Self.plain(.ok, "ready\n")
                : Self.plain(.serviceUnavailable, "draining\n")
        }
        router.get("**") { [self] request, _ in
            // A source request of an image server (this one, or another of the fleet): a loop.
            if SourceRequestMark.isMarked(request.headers[values: SourceRequestMark.field]) {
                return Answer(failure: .loopDetected).response
            }
            var path = request.uri.path
            if let query = request.uri.query, !query.isEmpty { path += "?" + query }
            let answer = await respond(
                toPath: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch])
            return answer.response
        }
    }

    /// The operator's routes: `GET /metrics` (Prometheus text: counters, timings, the shared tier's
    /// calls) and `DELETE /purge?url=SOURCE` (with the purge token). Put them on a router that only
    /// the operator reaches (`webimage serve --admin-host/--admin-port`), not on the public one.
    public func addAdminRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/metrics") { [self] _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text + (sharedTier?.metricsText ?? ""))))
        }
        router.delete("/purge") { [self] request, _ in
            let answer = await purge(source: request.uri.queryParameters["url"].map(String.init),
                                     authorization: request.headers[.authorization])
            return answer.response
        }
    }

    /// Stops taking work (``WorkAdmission/drain()``), then closes the source connections and
    /// lets the caches finish their writes. Requests already running finish first when the HTTP
    /// server drains them (Hummingbird's graceful shutdown).
    public func shutdown() async {
        admission.drain()
        await loader.shutdown()
        purgeListener?.cancel()
        await sharedTier?.shutdown()
        await sourceCache.waitForPendingDiskWork()
        if let local = localResults as? LocalResultCache { await local.flush() }
    }

    // MARK: Answering

    /// What a request for `path` gets: status, headers and body.
    func respond(toPath path: String, accept: String?, ifNoneMatch: String?) async -> Answer {
        let started = ContinuousClock.now
        let answer: Answer
        do {
            let variant = try variantRequest(path, accept: accept)
            let result: CachedResult
            if let hit = await results.result(forKey: variant.key) {
                // A hit answers on this task: no deadline, no shared work, no queue.
                metrics.cache("result")
                result = hit
            } else {
                result = try await made(variant, accept: accept)
            }
            answer = Answer(result: result, ifNoneMatch: ifNoneMatch, maxAge: configuration.resultMaxAge)
        } catch let failure as ServerFailure {
            answer = Answer(failure: failure)
        } catch {
            logger.error("unexpected failure", metadata: ["error": "\(error)"])
            answer = Answer(failure: .badGateway)
        }
        let elapsed = ContinuousClock.now - started
        metrics.answered(status: answer.status.code, after: elapsed)
        if configuration.accessLog {
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            logger.notice("request", metadata: [
                "status": "\(answer.status.code)", "bytes": "\(answer.body.readableBytes)",
                "ms": "\((milliseconds * 10).rounded() / 10)", "path": "\(path.prefix { $0 != "?" })",
            ])
        }
        return answer
    }

    /// A checked request: its thumbor path, source, encoder settings and result-cache key.
    struct VariantRequest: Sendable {
        var path: ThumborPath
        var source: URL
        var output: ThumborProcessor.Output
        var key: String
    }

    /// The longest request path (with its query) accepted; longer ones get 414 before any work.
    /// nginx's default header buffers hold 8 KB.
    public static let maxPathBytes = 8192
    private let checkedRequests = CheckedRequests()

    private func variantRequest(_ path: String, accept: String?) throws(ServerFailure) -> VariantRequest {
        guard path.utf8.count <= Self.maxPathBytes else { throw .pathTooLong }
        let memoKey = path + "\n" + (accept ?? "")
        if let known = checkedRequests.value(forKey: memoKey) { return known }
        let checked = try checkedRequest(path, accept: accept)
        checkedRequests.insert(checked, forKey: memoKey)
        return checked
    }

    private func checkedRequest(_ path: String, accept: String?) throws(ServerFailure) -> VariantRequest {
        let request = try authorize(path)
        let source = try SourceURL.parse(request.source)
        let output: ThumborProcessor.Output
        do {
            output = try ThumborProcessor(path: request, logger: logger).output()
        } catch {
            throw .badRequest(error.description)
        }
        let negotiationKey = output.format == nil ? OutputFormat.negotiationKey(accept, encodable: coders.canEncode(to:)) : "-"
        let key = [request.canonicalOptions, negotiationKey, source.absoluteString].joined(separator: "|")
        return VariantRequest(path: request, source: source, output: output, key: key)
    }

    /// A variant not in the result cache: made once for every request asking at the same time.
    /// The work has one deadline, from its start: past it the work is cancelled — the source
    /// download, the wait for a slot and the processing between stages — and its slot freed; a
    /// request stops waiting at its own deadline (504) and the work goes on, within its deadline,
    /// for the others sharing it and for the cache.
    private func made(_ variant: VariantRequest, accept: String?) async throws -> CachedResult {
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

    /// Removes the source (memory and disk) and every variant made from it. Needs the purge token
    /// as a bearer token; answers 404 when the server has none (purge off).
    func purge(source text: String?, authorization: String?) async -> Answer {
        guard let token = configuration.purgeToken else { return Answer(failure: ServerFailure(status: .notFound, message: "purge is not enabled on this server")) }
        let given = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
        guard URLSigner.constantTimeEquals(Data(given.utf8), Data(token.utf8)) else {
            return Answer(failure: ServerFailure(status: .unauthorized, message: "a valid bearer token is required"))
        }
        guard let text, !text.isEmpty else { return Answer(failure: .badRequest("purge needs ?url=SOURCE")) }
        let source: URL
        do { source = try SourceURL.parse(text) } catch { return Answer(failure: error) }
        let variants = await results.removeResults(forSource: source.absoluteString)
        if let key = manager.cacheKey(for: source) { await manager.imageCache.removeImage(forKey: key, cacheType: .all) }
        // Every other instance drops its local copies too.
        _ = await sharedTier?.purges.publish(source: source.absoluteString)
        logger.notice("purged", metadata: ["variants": "\(variants)"])
        return Answer(json: "{\"purged\":\(variants)}\n")
    }

    /// Parses and checks the signature (or `unsafe/`, when allowed).
    private func authorize(_ path: String) throws(ServerFailure) -> ThumborPath {
        let request: ThumborPath
        do {
            request = try ThumborPath(parsing: path)
        } catch .unsigned {
            throw .forbiddenSignature
        } catch {
            throw .badRequest(error.description)
        }
        switch request.authorization {
        case .unsafe:
            guard configuration.allowUnsafe else { throw .forbiddenUnsafe }
        case .signature(let signature):
            if signer.isValid(signature, for: request.signedPart) { return request }
            // libthumbor signs the path before a client percent-encodes it: then the decoded text
            // is what was signed, and it is what is parsed — never the raw segments.
            guard let decoded = request.signedPart.removingPercentEncoding, decoded != request.signedPart,
                  signer.isValid(signature, for: decoded) else { throw .forbiddenSignature }
            do {
                return try ThumborPath(parsing: signature + "/" + decoded, decodingSource: false)
            } catch {
                throw .badRequest(error.description)
            }
        }
        return request
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
    private func make(_ variant: VariantRequest, accept: String?) async throws -> CachedResult {
        // A drain turns new work away before its download; work that started before it finishes.
        guard !admission.isDraining else {
            metrics.refused("draining")
            throw ServerFailure.unavailable
        }
        let data = try await sourceData(variant.source)
        try Task.checkCancellation()
        let maker = VariantMaker(
            processor: ThumborProcessor(path: variant.path, logger: logger), output: variant.output,
            limits: VariantMaker.Limits(sourcePixels: configuration.maxSourcePixels,
                                        outputPixels: configuration.maxOutputPixels,
                                        animationBytes: configuration.maxAnimationBytes,
                                        requestBytes: configuration.maxRequestMemory,
                                        progressiveScans: configuration.maxProgressiveScans),
            coders: coders)
        let planned = try maker.plan(data, accept: accept)
        logger.debug("variant planned", metadata: [
            "planned": "\(planned.plan.peakBytes)", "reserved": "\(planned.reservation)", "stage": "\(planned.plan.peakStage?.name ?? "")",
        ])
        let result = try await admitted(bytes: planned.reservation) {
            let processingStarted = ContinuousClock.now
            defer { metrics.span("processing", .now - processingStarted) }
            return try await maker.make(planned, accept: accept)
        }
        await results.store(result, forKey: variant.key, source: variant.source.absoluteString)
        return result
    }

    /// The source's original bytes, from the source cache or the origin. Loads go through
    /// WebImage's manager with the structure-check coder: it shares one fetch among every variant
    /// asked for at once, checks the bytes (and the pixel limit) before they reach the disk cache,
    /// and decodes nothing, downloads and disk hits alike — each variant decodes at its own size.
    private func sourceData(_ source: URL) async throws -> Data {
        var context = WebImageContext(maxPixelCount: configuration.maxSourcePixels)
        context.maxAnimationBytes = configuration.maxAnimationBytes
        // JPEG XL is checked by decoding it: held to what one request may cost.
        context.imageCoder = StructureCheckCoder(maxDecodeBytes: configuration.maxRequestMemory)
        context.queryCacheType = .disk
        context.storeCacheType = .disk
        let started = ContinuousClock.now
        let loaded: ImageResult
        do {
            loaded = try await manager.loadImage(with: source, options: [.retryFailed], context: context)
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

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
