import Prometheus
import Synchronization

/// The server's Prometheus metrics (`GET /metrics`), named like imgproxy's where they overlap so
/// dashboards carry over: requests and status codes, request duration and its spans (queue,
/// download, processing), the stages of making a variant, cache hits by tier, merged requests,
/// source bytes, refusals for load.
/// Its own registry, so an app embedding the server keeps its own metrics system.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let requests: Counter
    private let duration: DurationHistogram
    private let sourceBytes: Counter
    private let merged: Counter
    /// Labelled series made once and kept: the registry's make-calls validate and look up on
    /// every call, and the cache-hit path makes them.
    private let labelled = Mutex<[String: Counter]>([:])
    private let histograms = Mutex<[String: DurationHistogram]>([:])

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
    ]

    /// Finer at the bottom than ``buckets``: a header read or a store takes microseconds.
    private static let stageBuckets: [Duration] = [
        .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(10),
    ]

    init() {
        requests = registry.makeCounter(name: "webimage_requests_total", help: "Image requests answered")
        duration = registry.makeDurationHistogram(
            name: "webimage_request_duration_seconds", buckets: Self.buckets, help: "Time to answer an image request")
        sourceBytes = registry.makeCounter(name: "webimage_source_bytes_total", help: "Bytes of sources fetched from origins")
        merged = registry.makeCounter(name: "webimage_merged_requests_total", help: "Requests that joined identical work already running")
    }

    func answered(status: Int, after elapsed: Duration) {
        requests.increment()
        counter("webimage_status_codes_total", "status", String(status), help: "Image requests by status code").increment()
        duration.record(elapsed)
    }

    /// `span`: queue (waiting for a work slot), download (source load, cache included), processing.
    func span(_ span: String, _ elapsed: Duration) {
        histogram("webimage_request_span_duration_seconds", [("span", span)], buckets: Self.buckets,
                  help: "Time spent in each stage of making a variant").record(elapsed)
    }

    /// One stage of one variant whose source is in `format` (``VariantStage``).
    func stage(_ stage: VariantStage, format: String, _ elapsed: Duration) {
        histogram("webimage_variant_stage_seconds", [("stage", stage.rawValue), ("format", format)], buckets: Self.stageBuckets,
                  help: "Time each stage of making a variant took (fetch, header, decode, transform, encode, store), by source format")
            .record(elapsed)
    }

    /// A hit in `tier`: result (memory or disk), source_disk; a miss is `origin`.
    func cache(_ tier: String) {
        counter("webimage_cache_lookups_total", "tier", tier, help: "Where variants and sources were found").increment()
    }

    func fetched(bytes: Int) { sourceBytes.increment(by: Int64(bytes)) }
    func joined() { merged.increment() }

    func refused(_ reason: String) {
        counter("webimage_refused_total", "reason", reason, help: "Requests turned away before any work (busy, draining)").increment()
    }

    var text: String { registry.emitToString() }

    private func counter(_ name: String, _ label: String, _ value: String, help: String) -> Counter {
        labelled.withLock { counters in
            let id = name + "\u{0}" + value
            if let known = counters[id] { return known }
            let made = registry.makeCounter(name: name, labels: [(label, value)], help: help)
            counters[id] = made
            return made
        }
    }

    private func histogram(_ name: String, _ labels: [(String, String)], buckets: [Duration], help: String) -> DurationHistogram {
        histograms.withLock { histograms in
            let id = ([name] + labels.map(\.1)).joined(separator: "\u{0}")
            if let known = histograms[id] { return known }
            let made = registry.makeDurationHistogram(name: name, labels: labels, buckets: buckets, help: help)
            histograms[id] = made
            return made
        }
    }
}
