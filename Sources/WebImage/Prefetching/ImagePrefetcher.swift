import Foundation
import Synchronization

/// Warms the cache with a list of URLs (SDWebImage's `SDWebImagePrefetcher`): a window of
/// ``Settings/maxConcurrentPrefetchCount`` loads through an ``ImageManager``, the next starting as one
/// ends, at low priority so on-screen loads go first. A URL listed twice is loaded once; the
/// repeat counts with the first one's outcome.
///
/// With ``WebImageContext/storeCacheType`` `.disk` (and no transform, thumbnail, serializer or
/// refresh) a load only puts the checked bytes on disk, straight from the loader: no image is
/// kept in memory, and a disk query (`queryCacheType` `.disk`) takes bytes already there without
/// decoding them — the bulk setting, as `webimage prefetch` uses it.
///
/// Through a downloader on the lean HTTP/1.1 client (``DownloaderConfig/Transport/http1``) the
/// loads run on the client's event loops, callbacks included: keep those short. Each worker (at
/// most the downloader's ``ImageDownloader/maxConcurrentDownloads``) then downloads on a
/// keep-alive connection of its own, without an operation per image; each download still takes
/// a slot in the downloader's queue, and other loads of the same URL share its request.
public final class ImagePrefetcher: Sendable {
    /// What an observer hears, summed over every running ``PrefetchToken`` (SD's delegate), each
    /// before the token's own progress or completion callback, as SD calls its delegate first.
    public enum Event: Sendable {
        /// One URL is done; `finished` and `total` are summed over the running tokens.
        case didPrefetch(url: URL, succeeded: Bool, finished: Int, total: Int)
        /// Every running token is done.
        case didFinish(total: Int, skipped: Int)
    }

    public struct Settings: Sendable {
        /// Loads in flight across all running prefetch calls (SD's default 3).
        public var maxConcurrentPrefetchCount = 3
        /// Options for every load (SD's default: low priority).
        public var options: WebImageOptions = .lowPriority
        public var context = WebImageContext()
        /// Hears every URL and the end of all work.
        public var observer: (@Sendable (Event) -> Void)?
        public init() {}
    }

    public static let shared = ImagePrefetcher()

    public let manager: ImageManager
    private let settingsState: Mutex<Settings>
    private let window = PrefetchWindow()
    private struct Running {
        var tokens: [ObjectIdentifier: PrefetchToken] = [:]
        /// Totals of the tokens that completed since the prefetcher was last idle.
        var batchTotal = 0
        var batchSkipped = 0
    }

    private let running = Mutex(Running())

    public init(manager: ImageManager = .shared, settings: Settings = Settings()) {
        self.manager = manager
        settingsState = Mutex(settings)
    }

    public var settings: Settings {
        get { settingsState.withLock { $0 } }
        set { settingsState.withLock { $0 = newValue } }
    }

    /// Starts loading `urls`. `progress(finished, total)` follows each URL (monotonic);
    /// `completed(finished, skipped)` fires once at the end — failures count as skipped — and
    /// never after the token is cancelled. An empty list completes with (0, 0).
    @discardableResult
    public func prefetch(
        _ urls: [URL], progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        let settings = self.settings
        let token = PrefetchToken(urls: urls, progress: progress, completion: completed) { [weak self] token in
            self?.tokenEnded(token, observer: settings.observer)
        }
        running.withLock { $0.tokens[ObjectIdentifier(token)] = token }
        token.attach(Task { await self.run(token, settings: settings) })
        return token
    }

    /// The async form: returns `(finished, skipped)` when done; cancelling the calling task
    /// cancels the remaining loads and returns what was done by then.
    public func prefetch(
        _ urls: [URL], progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil
    ) async -> (finished: Int, skipped: Int) {
        let settings = self.settings
        let token = PrefetchToken(urls: urls, progress: progress, completion: nil) { [weak self] token in
            self?.tokenEnded(token, observer: settings.observer)
        }
        running.withLock { $0.tokens[ObjectIdentifier(token)] = token }
        await withTaskCancellationHandler {
            await run(token, settings: settings)
        } onCancel: {
            token.cancel()
        }
        return (token.finishedCount, token.skippedCount)
    }

    /// Cancels every running prefetch (SD's `cancelPrefetching`).
    public func cancelPrefetching() {
        for token in running.withLock({ Array($0.tokens.values) }) { token.cancel() }
    }

    /// Number of prefetch calls still running.
    public var runningCount: Int { running.withLock { $0.tokens.count } }

    // MARK: - Internals

    private func run(_ token: PrefetchToken, settings: Settings) async {
        let next = NextIndex()
        let repeats = PrefetchRepeats(token.urls)
        var workers = max(1, min(settings.maxConcurrentPrefetchCount, token.urls.count))
        // On the lean client's event loops when the loader has them (a load then resumes where its
        // response arrived), spread round-robin; elsewhere on the cooperative pool.
        let bulk = manager.bulkLoading
        let executors = bulk?.bulkExecutors ?? []
        // Each worker then has a connection of its own (``BulkLane``); more of them than the
        // downloader's slots would only wait in its queue.
        if !executors.isEmpty, let downloader = bulk?.bulkDownloader {
            workers = min(workers, downloader.maxConcurrentDownloads)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers where !token.urls.isEmpty {
                let executor = executors.isEmpty ? nil : executors[worker % executors.count]
                let lane = executor.flatMap { executor in
                    bulk?.bulkDownloader.flatMap { downloader in
                        downloader.bulkConnection(for: executor).map { BulkLane(downloader: downloader, connection: $0) }
                    }
                }
                group.addTask(executorPreference: executor) {
                    await PreferredExecutor.$current.withValue(executor) {
                        await self.work(token, next: next, repeats: repeats, settings: settings, lane: lane)
                    }
                    lane?.connection.close()
                }
            }
        }
        token.complete()  // a no-op once cancelled
    }

    /// One worker: takes the next list position until the list is done or the prefetch cancelled.
    nonisolated(nonsending) private func work(
        _ token: PrefetchToken, next: NextIndex, repeats: PrefetchRepeats, settings: Settings, lane: BulkLane?
    ) async {
        let urls = token.urls
        while !Task.isCancelled {
            let index = next.take()
            guard index < urls.count else { return }
            let url = urls[index]
            let succeeded: Bool?
            if repeats.isRepeat(index) {
                succeeded = await repeats.outcome(forRepeat: index)
            } else {
                succeeded = await load(url, settings: settings, limit: settings.maxConcurrentPrefetchCount, lane: lane)
                repeats.finish(index, outcome: succeeded)
            }
            guard let succeeded, token.record(succeeded: succeeded, observe: { _, _ in
                self.notify(settings.observer, url: url, succeeded: succeeded)
            }) else { return }
        }
    }

    /// One load in the window: `true` loaded, `false` failed, `nil` cancelled with the prefetch
    /// (neither finished nor skipped).
    nonisolated(nonsending) private func load(_ url: URL, settings: Settings, limit: Int, lane: BulkLane?) async -> Bool? {
        guard await window.enter(limit: limit) else { return nil }
        defer { window.leave(limit: limit) }
        do {
            try await manager.warmCache(for: url, options: settings.options, context: settings.context, lane: lane)
            return true
        } catch {
            // Cancelled with the prefetch (the task, before the token hears of it).
            return error == .cancelled && Task.isCancelled ? nil : false
        }
    }

    private func notify(_ observer: (@Sendable (Event) -> Void)?, url: URL, succeeded: Bool) {
        guard let observer else { return }
        let (finished, total) = running.withLock { running in
            running.tokens.values.reduce((running.batchTotal, running.batchTotal)) {
                ($0.0 + $1.finishedCount, $0.1 + $1.totalCount)
            }
        }
        observer(.didPrefetch(url: url, succeeded: succeeded, finished: finished, total: total))
    }

    private func tokenEnded(_ token: PrefetchToken, observer: (@Sendable (Event) -> Void)?) {
        let finish = running.withLock { running -> (total: Int, skipped: Int)? in
            guard running.tokens.removeValue(forKey: ObjectIdentifier(token)) != nil else { return nil }
            if !token.isCancelled {
                running.batchTotal += token.totalCount
                running.batchSkipped += token.skippedCount
            }
            guard running.tokens.isEmpty else { return nil }
            defer { running.batchTotal = 0; running.batchSkipped = 0 }
            return token.isCancelled && running.batchTotal == 0 ? nil : (running.batchTotal, running.batchSkipped)
        }
        if let finish { observer?(.didFinish(total: finish.total, skipped: finish.skipped)) }
    }
}

/// Hands out list positions to the prefetch workers, each once.
private final class NextIndex: Sendable {
    private let value = Atomic<Int>(0)
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
