import Foundation
import Synchronization

/// One caller's share of a download (SDWebImage's `SDWebImageDownloadToken`). Cancelling it
/// answers this caller with ``WebImageError/cancelled`` and leaves the others alone; the HTTP
/// request stops when the last caller of its download has left.
public final class DownloadToken: WebImageOperation {
    /// The URL this token asked for.
    public let url: URL
    private let caller: DownloadCaller
    private let ticket: DownloadTicket
    private let callbacks: LoadCallbacks
    private let cancelled = Atomic<Bool>(false)

    /// Answers `callbacks` with the download `ticket` waits for.
    init(url: URL, caller: DownloadCaller, ticket: DownloadTicket, callbacks: LoadCallbacks) {
        self.url = url
        self.caller = caller
        self.ticket = ticket
        self.callbacks = callbacks
        Task { callbacks.complete(await ticket.value() ?? .failure(.cancelled)) }
    }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The answer first, inside this call; then the download loses a caller.
        callbacks.cancel()
        ticket.leave()
    }

    /// The final response head, once it arrived (SD's `token.response`).
    public var response: DownloadResponse? { caller.run?.response }
}
