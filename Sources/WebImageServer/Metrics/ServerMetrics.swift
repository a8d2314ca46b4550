import Prometheus
import Synchronization

/// The server's Prometheus metrics (`GET /metrics`), named like imgproxy's where they overlap so
/// dashboards carry over: requests and status codes, request duration and its spans (queue,
/// download, processing), cache hits by tier, merged requests, source bytes, refusals for load.
/// Its own registry, so an app embedding the server keeps its own metrics system.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let requests: Counter
    private let duration: DurationHistogram
    private let sourceBytes: Counter
    private let merged: Counter
    /// Labelled series made once and kept: the registry's make-calls validate and look up on
    /// every call, which showed in the cache-hit path's profile.
    private let labelled = Mutex<[String: Counter]>([:])
    private let spans = Mutex<[String: DurationHistogram]>([:])

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
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
        let histogram = spans.withLock { spans in
            if let known = spans[span] { return known }
            let made = registry.makeDurationHistogram(
                name: "webimage_request_span_duration_seconds", labels: [("span", span)], buckets: Self.buckets,
                help: "Time spent in each stage of making a variant")
            spans[span] = made
            return made
        }
        histogram.record(elapsed)
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
}
