import Foundation

/// One bulk prefetch worker's way to its downloader's lean client: a connection of its own on
/// the event loop the worker runs on (``EventLoopTaskExecutor``). A load of a URL that downloader
/// would carry goes down the lane (``ImageDownloader/bulkLoad(_:options:context:on:)``); any
/// other, or one the lane declines (a download of it already in flight, which it joins), goes the
/// ordinary way.
struct BulkLane: Sendable {
    let downloader: ImageDownloader
    let connection: HTTP1BulkConnection
}

/// A loader whose bulk work runs best on executors of its own (the lean client's event loops).
protocol BulkLoadExecuting: Sendable {
    /// The downloader on the lean client that this loader sends `http(s)` loads to, if any.
    var bulkDownloader: ImageDownloader? { get }
    /// The lean-client downloader this loader sends `url` to, if it sends it to one.
    func bulkDownloader(for url: URL) -> ImageDownloader?
}

extension BulkLoadExecuting {
    /// The executors a prefetch spreads its loads over (one per event loop); empty for none.
    var bulkExecutors: [any TaskExecutor] { bulkDownloader?.http1?.executors ?? [] }
}
