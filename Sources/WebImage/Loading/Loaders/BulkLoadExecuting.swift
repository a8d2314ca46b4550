/// A loader whose bulk work runs best on executors of its own: a downloader whose carrier has
/// them (the lean client's event loops). A prefetch runs its workers there, so a download's
/// response ends and its worker resumes on one loop, and the worker's next request takes that
/// loop's pooled connection (``HTTP1Transport`` prefers one on the caller's loop).
protocol BulkLoadExecuting: Sendable {
    /// The executors a prefetch spreads its workers over (one per event loop); empty for none.
    var bulkExecutors: [any TaskExecutor] { get }
}

extension ImageDownloader: BulkLoadExecuting {
    var bulkExecutors: [any TaskExecutor] { environment.carrier.bulkExecutors }
}
