import Foundation
import Logging
import Metrics

/// What the manager tells the outside world: a swift-log `Logger` (debug-level per load, so quiet
/// unless the app lowers the level) and swift-metrics counters and timers (no-ops until the app
/// bootstraps a metrics backend).
///
/// Metric names: `webimage_loads_total`, `webimage_cache_hits_total{type}`,
/// `webimage_failures_total{code}`, `webimage_downloaded_bytes_total`, `webimage_transform_seconds`
/// (and, from the loaders, `webimage_decode_seconds`). Callers that share one load (`SharedLoads`)
/// count one load each, but their shared cache hit, failure or download counts once.
public struct ManagerInstrumentation: Sendable {
    public var logger: Logger

    private let loads = Counter(label: "webimage_loads_total")
    private let memoryHits = Counter(label: "webimage_cache_hits_total", dimensions: [("type", "memory")])
    private let diskHits = Counter(label: "webimage_cache_hits_total", dimensions: [("type", "disk")])
    private let downloadedBytes = Counter(label: "webimage_downloaded_bytes_total")
    private let transformTime = Metrics.Timer(label: "webimage_transform_seconds")

    public init(logger: Logger = Logger(label: "WebImage.ImageManager")) {
        self.logger = logger
    }

    func loadStarted(_ url: URL) {
        loads.increment()
        logger.trace("load", metadata: ["url": "\(url.absoluteString)"])
    }

    func cacheHit(_ type: ImageCacheType) {
        (type == .memory ? memoryHits : diskHits).increment()
    }

    func downloaded(bytes: Int) {
        downloadedBytes.increment(by: bytes)
    }

    func failed(_ url: URL, error: WebImageError) {
        guard error != .cancelled else { return }  // a cancel is the caller's choice, not a failure
        Counter(label: "webimage_failures_total", dimensions: [("code", String(error.code))]).increment()
        logger.debug("load failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
    }

    func storeFailed(key: String, error: any Error) {
        logger.warning("cache store failed", metadata: ["key": "\(key)", "error": "\(error)"])
    }

    func timeTransform<T>(_ body: () -> T) -> T {
        let start = ContinuousClock.now
        defer { transformTime.recordDuration(ContinuousClock.now - start) }
        return body()
    }
}

extension Metrics.Timer {
    func recordDuration(_ elapsed: Duration) {
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
