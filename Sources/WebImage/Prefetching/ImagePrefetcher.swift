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
/// loads run on the client's event loops, callbacks included: keep those short. Each worker
/// then finds an idle keep-alive connection on its own loop; every load is an ordinary download
/// (a slot in the downloader's queue, its request shared with other loads of the same URL).
public final class ImagePrefetcher: Sendable {
    /// What an observer hears, summed over every running ``PrefetchToken`` (SD's delegate), in
    /// SD 4's order: a URL's ``didPrefetch(url:succeeded:finished:total:)`` after the token's
    /// progress callback, ``didFinish(total:skipped:)`` before its completion.
    public enum Event: Sendable {
        /// One URL is done; `finished` and `total` are summed over the running tokens.
        case didPrefetch(url: URL, succeeded: Bool, finished: Int, total: Int)
        /// Every running token is done. `total` counts every URL listed; SD 4 passes
        /// `total - skipped` (the URLs loaded) as its `totalCount` here.
        case didFinish(total: Int, skipped: Int)
    }

    /// What a new list does to the lists already running.
    public enum ListPolicy: Sendable, Hashable {
        /// Lists run side by side, each with its token (SD 5); ``cancelPrefetching()`` stops the
        /// prefetcher's own loads only.
        case sideBySide
        /// SD 4's prefetcher: a new list cancels the running ones, and ``cancelPrefetching()``
        /// also cancels every load of the ``manager`` (SD 4's `[manager cancelAll]`) — on-screen
        /// loads too when the manager is shared; SD 4's prefetcher had a manager of its own.
        case replacing
    }

    public struct Settings: Sendable {
        /// Loads in flight across all running prefetch calls (SD's default 3).
        public var maxConcurrentPrefetchCount = 3
        /// Options for every load (SD's default: low priority).
        public var options: WebImageOptions = .lowPriority
        public var context = WebImageContext()
        /// Hears every URL and the end of all work.
        public var observer: (@Sendable (Event) -> Void)?
        /// Times a URL that failed transiently — a timeout, a reset or refused connection, HTTP
        /// 408, 429 or 5xx; never what SD's blocklist rule calls permanent — is tried again.
        public var retryLimit = 0
        /// The wait before the first retry; each next one doubles, each with ±50 % jitter.
        public var retryDelay: Duration = .milliseconds(500)
        /// Side by side (SD 5, the default) or one list at a time (SD 4).
        public var lists = ListPolicy.sideBySide
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
        start(urls, keeping: nil, progress: progress, completed: completed)
    }

    /// ``prefetch(_:progress:completed:)`` into `collection` of the manager's ``ImageCache``:
    /// every URL's key is pinned there first (``DiskCache/pin(_:in:)``), so what is stored stays
    /// through age and size trims, and a URL counts as finished only once its entry is on disk —
    /// one that does not fit beside the pinned entries is skipped. The token counts the stored
    /// bytes (``PrefetchToken/byteCount``). Throws ``ImageCollectionError`` or ``DiskCacheError``
    /// when the keys cannot be pinned.
    @discardableResult
    public func prefetch(
        _ urls: [URL], into collection: String, progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) throws -> PrefetchToken {
        start(urls, keeping: try pin(urls, in: collection), progress: progress, completed: completed)
    }

    /// The async form: returns `(finished, skipped)` when done; cancelling the calling task
    /// cancels the remaining loads and returns what was done by then.
    public func prefetch(
        _ urls: [URL], progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil
    ) async -> (finished: Int, skipped: Int) {
        await prefetch(urls, keeping: nil, progress: progress)
    }

    /// The async form of ``prefetch(_:into:progress:completed:)``.
    public func prefetch(
        _ urls: [URL], into collection: String, progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil
    ) async throws -> (finished: Int, skipped: Int) {
        await prefetch(urls, keeping: try pin(urls, in: collection), progress: progress)
    }

    /// The callback forms: a running token whose loads go on in a task of their own.
    private func start(
        _ urls: [URL], keeping: Keeping?, progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)?,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)?
    ) -> PrefetchToken {
        let settings = self.settings
        replaceRunningLists(settings)
        let token = register(urls, settings: settings, progress: progress, completed: completed)
        token.attach(Task { await self.run(token, settings: settings, keeping: keeping) })
        return token
    }

    /// The async forms: the loads run in the calling task, cancelled with it.
    private func prefetch(
        _ urls: [URL], keeping: Keeping?, progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)?
    ) async -> (finished: Int, skipped: Int) {
        let settings = self.settings
        replaceRunningLists(settings)
        let token = register(urls, settings: settings, progress: progress, completed: nil)
        await withTaskCancellationHandler {
            await run(token, settings: settings, keeping: keeping)
        } onCancel: {
            token.cancel()
        }
        return (token.finishedCount, token.skippedCount)
    }

    /// Cancels every running prefetch (SD's `cancelPrefetching`); with ``ListPolicy/replacing``
    /// every load of the ``manager`` as well.
    public func cancelPrefetching() {
        for token in running.withLock({ Array($0.tokens.values) }) { token.cancel() }
        if settings.lists == .replacing { manager.cancelAll() }
    }

    /// Number of prefetch calls still running.
    public var runningCount: Int { running.withLock { $0.tokens.count } }

    // MARK: - Internals

    /// SD 4 cancels the running list before it starts a new one.
    private func replaceRunningLists(_ settings: Settings) {
        if settings.lists == .replacing { cancelPrefetching() }
    }

    /// A token for `urls`, counted among the running ones until it ends.
    private func register(
        _ urls: [URL], settings: Settings, progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)?,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)?
    ) -> PrefetchToken {
        let token = PrefetchToken(urls: urls, progress: progress, completion: completed) { [weak self] token in
            self?.tokenEnded(token, observer: settings.observer)
        }
        running.withLock { $0.tokens[ObjectIdentifier(token)] = token }
        return token
    }

    /// Where a collection prefetch checks each load's entry: the cache, and the key of each URL.
    private struct Keeping: Sendable {
        let cache: ImageCache
        let keys: [String]
    }

    private func pin(_ urls: [URL], in collection: String) throws -> Keeping {
        guard let cache = manager.imageCache as? ImageCache else { throw ImageCollectionError.noDiskCache }
        let context = settings.context
        let keys = urls.map { manager.cacheKey(for: $0, context: context) ?? $0.absoluteString }
        try cache.pin(keys, in: collection)
        return Keeping(cache: cache, keys: keys)
    }

    private func run(_ token: PrefetchToken, settings: Settings, keeping: Keeping?) async {
        let next = NextIndex()
        let repeats = PrefetchRepeats(token.urls)
        let workers = max(1, min(settings.maxConcurrentPrefetchCount, token.urls.count))
        // On the lean client's event loops when the loader has them (a load then resumes where its
        // response arrived), spread round-robin; elsewhere on the cooperative pool. Only with the
        // library's own cache, which never blocks its caller: another may block a loop on its disk.
        let caches = [settings.context.imageCache ?? manager.imageCache, settings.context.originalImageCache]
        let ownCaches = caches.allSatisfy { $0 == nil || $0 is ImageCache }
        let executors = ownCaches ? manager.bulkLoading?.bulkExecutors ?? [] : []
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers where !token.urls.isEmpty {
                let executor = executors.isEmpty ? nil : executors[worker % executors.count]
                group.addTask(executorPreference: executor) {
                    await PreferredExecutor.$current.withValue(executor) {
                        await self.work(token, next: next, repeats: repeats, settings: settings, keeping: keeping)
                    }
                }
            }
        }
        token.complete()  // a no-op once cancelled
    }

    /// One worker: takes the next list position until the list is done or the prefetch cancelled.
    nonisolated(nonsending) private func work(
        _ token: PrefetchToken, next: NextIndex, repeats: PrefetchRepeats, settings: Settings, keeping: Keeping?
    ) async {
        let urls = token.urls
        while !Task.isCancelled {
            await token.waitWhilePaused()
            let index = next.take()
            guard index < urls.count else { return }
            token.noteRequested()
            let url = urls[index]
            var succeeded: Bool?
            if repeats.isRepeat(index) {
                succeeded = await repeats.outcome(forRepeat: index)
            } else {
                succeeded = await load(url, settings: settings, limit: settings.maxConcurrentPrefetchCount)
                if succeeded == true, let keeping {
                    // A store that failed (no room beside the pinned entries) fails the URL.
                    let entry = await keeping.cache.collectionEntry(forKey: keeping.keys[index])
                    succeeded = entry.isCached
                    token.addBytes(entry.bytes)
                }
                repeats.finish(index, outcome: succeeded)
            }
            guard let succeeded else { return }
            let observe = settings.observer.map { observer in { @Sendable in self.notify(observer, url: url, succeeded: succeeded) } }
            guard token.record(succeeded: succeeded, observe: observe) else { return }
        }
    }

    /// One load in the window: `true` loaded, `false` failed, `nil` cancelled with the prefetch
    /// (neither finished nor skipped).
    nonisolated(nonsending) private func load(_ url: URL, settings: Settings, limit: Int) async -> Bool? {
        var attempt = 0
        while true {
            let outcome: Result<Void, WebImageError>
            do {
                guard await window.enter(limit: limit) else { return nil }
                defer { window.leave(limit: limit) }
                do {
                    try await manager.warmCache(for: url, options: settings.options, context: settings.context)
                    outcome = .success(())
                } catch {
                    outcome = .failure(error)
                }
            }
            guard case .failure(let error) = outcome else { return true }
            // Cancelled with the prefetch (the task, before the token hears of it).
            if error == .cancelled && Task.isCancelled { return nil }
            guard attempt < settings.retryLimit, error.isWorthRetrying else { return false }
            // Out of the window while waiting: the next URLs go on meanwhile.
            let jitter = Double.random(in: 0.5...1.5)
            do { try await Task.sleep(for: settings.retryDelay * (Double(1 << min(attempt, 16)) * jitter)) } catch { return nil }
            attempt += 1
        }
    }

    private func notify(_ observer: @Sendable (Event) -> Void, url: URL, succeeded: Bool) {
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

extension WebImageError {
    /// A failure another try may not meet: a transient one (``isTransient``) other than a
    /// cancellation, or a status the server may lift (408, 429, 5xx).
    var isWorthRetrying: Bool {
        if case .invalidDownloadStatusCode(let status) = self { return status == 408 || status == 429 || (500...599).contains(status) }
        return isTransient && self != .cancelled
    }
}
