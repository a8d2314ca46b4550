import Dispatch
import Foundation
import Synchronization

/// A bulk prefetch's load of one URL (``ImageDownloader/bulkLoad(_:options:context:on:)``) as the
/// downloader's other callers see it: an ordinary download of the same URL and settings joins it
/// instead of sending a second request, and gets the same result. As with a `DownloadOperation`,
/// the request stops only when its last caller leaves — a cancelled prefetch lets it finish for
/// those who joined. It takes a slot in the downloader's queue like any download, so the
/// queue's limit, priorities and suspension hold for bulk work too.
final class BulkShare: SharedDownload, DownloadQueueItem {
    private struct State {
        var joined = DownloadCallers()
        var prefetchLeft = false
        var isStopped = false
        var isEnded = false
        var response: DownloadResponse?
        /// The queue gave it a slot.
        var isStarted = false
        var slotWaiter: UnsafeContinuation<Bool, Never>?
    }

    let url: URL
    private let state = Mutex(State())
    /// Stops the request (this share's fetch on the lane's connection).
    private let stopRequest: @Sendable (BulkShare) -> Void

    init(url: URL, stop: @escaping @Sendable (BulkShare) -> Void) {
        self.url = url
        stopRequest = stop
    }

    /// Joins a caller; `nil` once the load has stopped or ended and a download of its own is needed.
    func add(_ callbacks: LoadCallbacks) -> DownloadToken? {
        state.withLock { state in
            guard !state.isEnded, !state.isStopped else { return nil }
            return DownloadToken(url: url, id: state.joined.add(callbacks), operation: self, callbacks: callbacks)
        }
    }

    /// Whether the request was stopped: a fetch starting after that ends at once.
    var isStopped: Bool { state.withLock { $0.isStopped } }

    /// The prefetch was cancelled: the request stops unless someone joined it.
    func prefetchLeaves() {
        let stops = state.withLock { state in
            state.prefetchLeft = true
            return state.joined.isEmpty && !state.isEnded
        }
        if stops { stop() }
    }

    func cancel(tokenID: UInt64) {
        let (removed, stops) = state.withLock { state -> (LoadCallbacks?, Bool) in
            guard let removed = state.joined.remove(tokenID) else { return (nil, false) }
            return (removed, state.joined.isEmpty && state.prefetchLeft && !state.isEnded)
        }
        removed?.cancel()
        if stops { stop() }
    }

    var response: DownloadResponse? { state.withLock { $0.response } }

    /// Callers who joined and wait (the specs watch it).
    var joinedCount: Int { state.withLock { $0.joined.count } }

    /// The load ended: no one joins any more; those who did get `result`, off the event loop
    /// unless they only resume a task (as a `DownloadOperation` answers them).
    func end(_ result: Result<ImageLoaderResult, WebImageError>, response: DownloadResponse?) {
        let joined = state.withLock { state in
            state.isEnded = true
            state.response = response
            return state.joined.removeAll()
        }
        for caller in joined {
            if caller.isAnsweredInPlace {
                caller.complete(result)
            } else {
                DispatchQueue.global(qos: .utility).async { caller.complete(result) }
            }
        }
    }

    /// ``ImageDownloader/cancelAllDownloads()``: everyone who joined gets ``WebImageError/cancelled``
    /// and the request stops (the prefetch's load with it).
    func cancelAll() {
        let joined = state.withLock { state -> [LoadCallbacks]? in
            guard !state.isEnded else { return nil }
            return state.joined.removeAll()
        }
        guard let joined else { return }
        joined.forEach { $0.cancel() }
        stop()
    }

    private func stop() {
        let waiter = state.withLock { state in
            state.isStopped = true
            defer { state.slotWaiter = nil }
            return state.slotWaiter
        }
        waiter?.resume(returning: false)
        stopRequest(self)
    }

    // MARK: The queue slot

    /// Waits for a slot in `queue`; `false` when stopped first. The caller gives the slot back
    /// with `queue.remove(self)` either way.
    nonisolated(nonsending) func takeSlot(in queue: DownloadQueue, priority: DownloadPriority) async -> Bool {
        if isStopped { return false }
        queue.enqueue(self, priority: priority)
        // A free slot starts it within `enqueue`: no suspension.
        if let now = state.withLock({ $0.isStopped ? false : $0.isStarted ? true : nil }) { return now }
        return await withUnsafeContinuation { continuation in
            let now = state.withLock { state -> Bool? in
                if state.isStopped { return false }
                if state.isStarted { return true }
                state.slotWaiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    func startFromQueue() {
        let waiter = state.withLock { state in
            state.isStarted = true
            defer { state.slotWaiter = nil }
            return state.slotWaiter
        }
        waiter?.resume(returning: true)
    }
}
