/// What a downloader's downloads share, one per downloader: its carrier, config, queue, events
/// and transfer clocks.
final class DownloadEnvironment: Sendable {
    /// What moves the bytes of every hop, chosen once.
    let carrier: any Carrier
    let config: DownloaderConfig
    /// What a response head must pass, and what every download's state starts from: the config's
    /// parts, taken once, not a copy of the whole config per download.
    let acceptance: ResponseAcceptance
    let limits: DownloadRequestState.Limits
    let queue: DownloadQueue
    let events: DownloaderEventHub
    /// The transfers' timers, one per event loop.
    let clocks = TransferClocks()

    init(carrier: any Carrier, config: DownloaderConfig, queue: DownloadQueue, events: DownloaderEventHub) {
        self.carrier = carrier
        self.config = config
        acceptance = ResponseAcceptance(config)
        limits = DownloadRequestState.Limits(config)
        self.queue = queue
        self.events = events
    }
}
