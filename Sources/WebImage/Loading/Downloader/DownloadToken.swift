import Foundation
import Synchronization

/// One caller's share of a download (SDWebImage's `SDWebImageDownloadToken`). Cancelling it
/// answers this caller with ``WebImageError/cancelled`` and leaves the others alone; the HTTP
/// request stops when the last token of its operation is cancelled.
public final class DownloadToken: WebImageOperation {
    /// The URL this token asked for.
    public let url: URL
    private let id: UInt64
    private let operation: DownloadOperation
    private let callbacks: LoadCallbacks
    private let cancelled = Atomic<Bool>(false)

    init(url: URL, id: UInt64, operation: DownloadOperation, callbacks: LoadCallbacks) {
        self.url = url
        self.id = id
        self.operation = operation
        self.callbacks = callbacks
    }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        operation.cancel(tokenID: id)
        // The operation may have taken this caller off its list to answer it: the gate decides
        // which of the answer and the cancel it gets, and nothing comes after this returns.
        callbacks.cancel()
    }

    /// The final response head, once it arrived (SD's `token.response`).
    public var response: DownloadResponse? { operation.response }
}
