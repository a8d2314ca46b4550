import Foundation
import Hummingbird
import Logging
import Synchronization
import WebImage
import WebImageRedis

/// thumbor's HTTP API on the WebImage pipeline, and the composition root of the server: it builds
/// the source side (WebImage's manager over a loader — the server's ``SourceLoader``, every hop
/// checked and pinned, or any `ImageLoader` an application gives), the result cache (any
/// ``ResultCaching``), admission and metrics, and joins them in one `VariantPipeline`. Mount its
/// routes in any Hummingbird application with ``addRoutes(to:)`` (or ``routes(context:)``, a
/// `RouteCollection`), or run it alone with `webimage serve`.
public final class ImageServer: Sendable {
    public let configuration: ImageServerConfiguration
    let sourceCache: ImageCache
    let manager: ImageManager
    let results: any ResultCaching
    /// This instance's own variants (``results`` also reads the shared tier when there is one).
    let localResults: any ResultCaching
    let sharedTier: SharedTier?
    private let purgeListener: Task<Void, Never>?
    let loader: SourceLoader
    let admission: WorkAdmission
    let metrics = ServerMetrics()
    let coders: ImageCodersManager
    let logger: Logger
    /// Parse → authorise → share → admit → make → store.
    let pipeline: VariantPipeline
    /// Where this server listens (``serving(on:)``): sources there are refused.
    public let servingAddresses = ServingAddresses()

    /// Identical requests at once share one piece of work (`VariantPipeline/sharedWork`).
    var sharedWork: SharedTasks<String, Void, Result<CachedResult, ServerFailure>> { pipeline.sharedWork }

    /// A checked request (`VariantPipeline/Request`).
    typealias VariantRequest = VariantPipeline.Request

    /// The longest request path (with its query) accepted; longer ones get 414 before any work.
    /// nginx's default header buffers hold 8 KB.
    public static let maxPathBytes = 8192

    /// A server with `configuration`; `resultCache` replaces the local one (a shared tier);
    /// `loader` replaces the server's own source loader (the application's loader then owns the
    /// source policy); `lookUp` replaces the source hosts' name service (c-ares, cached, with a
    /// deadline, by default).
    public init(
        configuration: ImageServerConfiguration, resultCache: (any ResultCaching)? = nil,
        loader sourceLoader: (any ImageLoader)? = nil,
        logger: Logger = Logger(label: "WebImageServer"), lookUp: SourceResolver.Lookup? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
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
        let sources: any ImageLoader = sourceLoader ?? loader
        if let sharedTier {
            manager = ImageManager(cache: sharedTier.sourceCaches(over: sourceCache), loader: sources)
            results = TieredResultCache(local: localResults, shared: sharedTier.results)
        } else {
            manager = ImageManager(cache: sourceCache, loader: sources)
            results = localResults
        }
        admission = WorkAdmission(width: configuration.concurrency, queueLimit: configuration.queueLimit,
                                  memoryBytes: configuration.maxMemory)
        coders = .shared
        pipeline = VariantPipeline(
            configuration: configuration,
            authorizer: RequestAuthorizer(signer: URLSigner(keys: configuration.securityKeys), allowsUnsafe: configuration.allowUnsafe),
            manager: manager, sourceCache: sourceCache, results: results, admission: admission,
            metrics: metrics, coders: coders, logger: logger)
        // Another instance's purge: drop this one's local copies (the shared tier is purged already).
        purgeListener = sharedTier?.purges.listen { [manager, sourceCache, localResults] source in
            guard let url = URL(string: source) else { return }
            _ = await localResults.removeResults(forSource: source)
            if let key = manager.cacheKey(for: url) { await sourceCache.removeImage(forKey: key, cacheType: .all) }
        }
    }

    /// Stops taking work (`WorkAdmission/drain()`), then closes the source connections and
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

    /// The answer to an image request: the variant (or 304 when the client's ETag matches); a
    /// `meta/` request's JSON, wrapped in `callback(…);` when it names one. Failures are thrown.
    func image(for path: String, accept: String?, ifNoneMatch: String?, callback: String?) async throws(ServerFailure) -> Response {
        let variant = try pipeline.request(for: path, accept: accept)
        let jsonp = try variant.path.meta ? callback.map { name throws(ServerFailure) in try MetaCallback(name) } : nil
        var result = try await pipeline.result(for: variant, accept: accept)
        if let jsonp { result = jsonp.wrapping(result) }
        let cacheControl = variant.output.maxAge.map { $0 > 0 ? "public, max-age=\($0)" : "no-cache" }
            ?? "public, max-age=\(configuration.resultMaxAge)"
        return Answer(result: result, ifNoneMatch: ifNoneMatch, cacheControl: cacheControl).response
    }

    /// Removes the source (memory and disk) and every variant made from it. Needs the purge token
    /// as a bearer token; answers 404 when the server has none (purge off).
    func purge(source text: String?, authorization: String?) async throws(ServerFailure) -> Answer {
        guard let token = configuration.purgeToken else { throw .purgeDisabled }
        let given = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
        guard URLSigner.constantTimeEquals(Data(given.utf8), Data(token.utf8)) else { throw .unauthorized }
        guard let text, !text.isEmpty else { throw .badRequest("purge needs ?url=SOURCE") }
        let source = try SourceURL.parse(text)
        let variants = await results.removeResults(forSource: source.absoluteString)
        if let key = manager.cacheKey(for: source) { await manager.imageCache.removeImage(forKey: key, cacheType: .all) }
        // Every other instance drops its local copies too.
        _ = await sharedTier?.purges.publish(source: source.absoluteString)
        logger.notice("purged", metadata: ["variants": "\(variants)"])
        return Answer(json: "{\"purged\":\(variants)}\n")
    }
}
