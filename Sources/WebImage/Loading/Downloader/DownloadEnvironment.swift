import AsyncHTTPClient
import Synchronization

/// What a downloader's operations share, one per downloader: its clients, config, queue, events
/// and transfer clocks, and the operations in flight by key (so a caller of the same download joins).
final class DownloadEnvironment: Sendable {
    struct Operations {
        var byKey: [DownloadShareKey: DownloadOperation] = [:]
        var isShutDown = false

        /// A token on the download of `key` in flight, if it still takes callers.
        func joinable(_ key: DownloadShareKey, _ callbacks: LoadCallbacks) -> DownloadToken? {
            byKey[key]?.add(callbacks)
        }
    }

    let client: HTTPClient
    /// The lean client (``DownloaderConfig/Transport/http1``), if the downloader uses it.
    let http1: HTTP1Transport?
    let config: DownloaderConfig
    /// What a response head must pass, and what every download's state starts from: the config's
    /// parts, taken once (a copy of the whole config per download showed in a bulk download).
    let acceptance: ResponseAcceptance
    let limits: DownloadRequestState.Limits
    let queue: DownloadQueue
    let events: DownloaderEventHub
    /// The transfers' timers, one per event loop.
    let clocks = TransferClocks()
    let operations = Mutex(Operations())

    init(client: HTTPClient, http1: HTTP1Transport?, config: DownloaderConfig, queue: DownloadQueue, events: DownloaderEventHub) {
        self.client = client
        self.http1 = http1
        self.config = config
        acceptance = ResponseAcceptance(config)
        limits = DownloadRequestState.Limits(config)
        self.queue = queue
        self.events = events
    }

    /// `operation` takes no more callers (finished or all cancelled): a new caller of its key starts another.
    func operationDone(_ operation: DownloadOperation) {
        operations.withLock { operations in
            if operations.byKey[operation.key] === operation { operations.byKey[operation.key] = nil }
        }
    }
}
