/// The executor a prefetch runs its loads on (``ImagePrefetcher`` on a downloader with the lean
/// HTTP/1.1 client: the client's event loops), carried to the tasks a load starts inside it —
/// ``immediateTask(_:)`` reads it — so they resume where their response arrives instead of
/// waking a thread of the pool.
enum PreferredExecutor {
    @TaskLocal static var current: (any TaskExecutor)?
}
