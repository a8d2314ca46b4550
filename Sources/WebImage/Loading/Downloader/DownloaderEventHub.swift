import Foundation
import Synchronization

/// What a downloader reports about each download (SD posts `SDWebImageDownloadStartNotification`,
/// `…ReceiveResponse…`, `…Stop…`, `…Finish…`).
public enum DownloaderEvent: Sendable {
    /// The request was handed to the HTTP client.
    case start(URL)
    /// The final response head arrived (after redirects and the response modifier).
    case response(URL, DownloadResponse)
    /// The transfer ended: all bytes in, failed, or cancelled.
    case stop(URL)
    /// The download finished and its callers were answered; `error` is `nil` on success.
    case finish(URL, metrics: DownloadMetrics, error: WebImageError?)
}

/// Fans events out to every `AsyncStream` handed out by ``events()``.
final class DownloaderEventHub: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<DownloaderEvent>.Continuation]>([:])
    /// How many streams listen, kept beside the list: four events a download need no lock when nobody does.
    private let listeners = Atomic<Int>(0)

    /// A stream of every event from now on; it ends when the consumer stops iterating or the
    /// downloader shuts down. Buffers the newest 1,000 events for a slow consumer.
    func events() -> AsyncStream<DownloaderEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DownloaderEvent.self, bufferingPolicy: .bufferingNewest(1000))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { state in
                if state.removeValue(forKey: id) != nil { self?.listeners.subtract(1, ordering: .relaxed) }
            }
        }
        continuations.withLock { state in
            state[id] = continuation
            listeners.add(1, ordering: .relaxed)
        }
        return stream
    }

    /// Cheap when nobody listens: the event is not even built.
    func emit(_ event: @autoclosure () -> DownloaderEvent) {
        guard listeners.load(ordering: .relaxed) > 0 else { return }
        let targets = continuations.withLock { Array($0.values) }
        guard !targets.isEmpty else { return }
        let event = event()
        for continuation in targets { continuation.yield(event) }
    }

    func finishAll() {
        let targets = continuations.withLock { state in
            defer { state = [:]; listeners.store(0, ordering: .relaxed) }
            return Array(state.values)
        }
        targets.forEach { $0.finish() }
    }
}
