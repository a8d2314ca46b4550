import Foundation
import Synchronization

/// Joins a cache and a loader (SDWebImage's `SDWebImageManager`): look the image up, load it on a
/// miss, transform it, store it, answer. See ``loadImage(with:options:context:)`` for the order.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(with: url, context: WebImageContext(
///     thumbnailPixelSize: PixelSize(width: 256, height: 256)))
/// ```
public final class ImageManager: Sendable {
    /// Settings that may change while loads run; each load reads them once at its start.
    public struct Settings: Sendable {
        /// Maps a URL to its cache key (``WebImageContext/cacheKeyFilter`` wins over this).
        public var cacheKeyFilter: (@Sendable (URL) -> String?)?
        /// The bytes stored for a loaded image (``WebImageContext/cacheSerializer`` wins over this).
        public var cacheSerializer: (@Sendable (Image, Data?, URL) -> Data?)?
        /// Applied to every load without a transformer of its own.
        public var transformer: (any ImageTransformer)?
        /// Rewrites each load's options and context before anything else (SD's options processor).
        public var optionsProcessor: (@Sendable (URL, WebImageOptions, WebImageContext) -> (WebImageOptions, WebImageContext))?
        /// Asked before each download; `false` ends the load with ``WebImageError/notInCache``.
        public var shouldDownload: (@Sendable (URL) -> Bool)?
        /// Decides whether a failure blocklists the URL, instead of the loader's rule.
        public var shouldBlockFailedURL: (@Sendable (URL, WebImageError) -> Bool)?

        public init() {}
    }

    public static let shared = ImageManager()

    /// Where images are looked up and stored (``WebImageContext/imageCache`` wins per load).
    public let imageCache: any ImageCaching
    /// What loads images on a miss (``WebImageContext/imageLoader`` wins per load).
    public let imageLoader: any ImageLoader

    let failedURLs = FailedURLs()
    let instrumentation: ManagerInstrumentation
    private let settingsState = Mutex(Settings())
    /// Whether keys are plain absolute strings (no processor, key filter or default
    /// transformer): read by the memory fast path as one atomic, instead of copying `settings`.
    private let plainKeys = Atomic<Bool>(true)
    /// ``imageCache`` when it is an ``ImageCache``, whose memory tier the fast path reads directly.
    private let memoryCache: ImageCache?
    /// ``imageLoader`` when it has executors for bulk work: cast once, not per prefetch.
    let bulkLoading: (any BulkLoadExecuting)?
    /// The callback form's operations in progress, for ``cancelAll()`` to answer at once.
    private let running = Mutex<[ObjectIdentifier: CombinedOperation]>([:])
    /// Long-way loads in progress, shared by callers asking for the same image at once.
    let sharedLoads = SharedLoads(whenAbandoned: .cancel)
    /// Numbers the loads that run alone.
    private let loneLoads = Atomic<UInt64>(0)

    public init(
        cache: any ImageCaching = ImageCache.shared, loader: any ImageLoader = ImageLoadersManager.shared,
        instrumentation: ManagerInstrumentation = ManagerInstrumentation()
    ) {
        imageCache = cache
        memoryCache = cache as? ImageCache
        imageLoader = loader
        bulkLoading = loader as? any BulkLoadExecuting
        self.instrumentation = instrumentation
    }

    public var settings: Settings {
        get { settingsState.withLock { $0 } }
        set {
            settingsState.withLock { settings in
                settings = newValue
                // Under the same lock, so concurrent setters cannot leave the flag out of step.
                plainKeys.store(
                    newValue.optionsProcessor == nil && newValue.cacheKeyFilter == nil && newValue.transformer == nil,
                    ordering: .releasing)
            }
        }
    }

    // MARK: - Keys

    /// The full key and the original's key (equal when nothing is derived).
    func cacheKeys(for url: URL, context: WebImageContext, settings: Settings) -> (key: String?, originalKey: String?) {
        let filter = context.cacheKeyFilter ?? settings.cacheKeyFilter
        guard let original = filter.map({ $0(url) }) ?? url.absoluteString else { return (nil, nil) }
        var key = original
        if let size = context.thumbnailPixelSize {
            key = TransformedCacheKeys.thumbnailedKey(for: key, pixelSize: size, preserveAspectRatio: context.preserveAspectRatio)
        }
        if let transformer = context.imageTransformer {
            key = TransformedCacheKeys.transformedKey(for: key, transformerKey: transformer.transformerKey)
        }
        return (key, original)
    }

    // MARK: - Loading

    /// Loads the image for `url`: options processor → blocklist → cache (full key, then the
    /// original's key for thumbnails and transforms) → loader → transform → store → answer.
    /// Cancelling the calling task cancels the load with ``WebImageError/cancelled``.
    ///
    /// With ``WebImageOptions/refreshCached`` this returns the revalidated image: the cached one
    /// when the server answers 304, the new one otherwise.
    public func loadImage(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async throws(WebImageError) -> ImageResult {
        switch begin(url, options: options, context: context) {
        case .answered(let hit): return hit
        case .longWay(let request): return try await loadTheLongWay(request)
        }
    }

    /// The long way for an awaiting task, which waits on the load itself (shared with callers of
    /// the same image, reached by ``cancelAll()``); cancelling the task cancels this caller's part.
    func loadTheLongWay(_ request: LoadRequest) async throws(WebImageError) -> ImageResult {
        try await longWay(request, caller: .answerOnly).get().result
    }

    /// `request`'s load for `caller`: joined when callers of the same image share it, else alone.
    func longWay(_ request: LoadRequest, caller: LoadCaller) async -> Result<LoadAnswer, WebImageError> {
        instrumentation.loadStarted(request.url)
        let key = request.shareKey(wantsProgress: caller.progress != nil).map(LoadKey.shared)
            ?? .alone(loneLoads.add(1, ordering: .relaxed).newValue)
        return await sharedLoads.value(for: key, member: caller) { callers in
            do throws(WebImageError) {
                let (result, unchanged) = try await self.perform(request, callers: callers)
                return .success(LoadAnswer(result: result, repeatsIntermediate: unchanged))
            } catch {
                return .failure(error)
            }
        } ?? .failure(.cancelled)
    }

    /// ``loadImage(with:options:context:)`` with the default context — built only when the load
    /// misses memory.
    public func loadImage(with url: URL, options: WebImageOptions = []) async throws(WebImageError) -> ImageResult {
        if let hit = fastMemoryHit(url, options: options) { return hit }
        return try await loadImage(with: url, options: options, context: WebImageContext())
    }

    /// The load as a stream: progress, partial images (``WebImageOptions/progressiveLoad``; only
    /// the newest waits for a slow consumer), then the image — for ``WebImageOptions/refreshCached``
    /// the cached one and, if the server has new bytes, the new one. Ends by throwing
    /// ``WebImageError`` on failure. Ending the iteration cancels the load.
    public func images(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) -> ImageLoadEvents {
        let partials = NewestPartial()
        let stream = AsyncThrowingStream<ImageLoadEvents.Item, any Error> { continuation in
            let request: LoadRequest
            switch begin(url, options: options, context: context) {
            case .answered(let hit):
                continuation.yield(.event(.image(hit)))
                continuation.finish()
                return
            case .longWay(let prepared):
                request = prepared
            }
            let operation = start(request) { event in
                switch event {
                case .progress(let progress):
                    continuation.yield(.event(.progress(received: progress.receivedSize, expected: progress.expectedSize)))
                    if let partial = progress.partialImage, partials.offer(partial) { continuation.yield(.partialReady) }
                case .intermediate(let result):
                    continuation.yield(.event(.image(result)))
                case .final(.success(let result), let repeatsIntermediate):
                    if !repeatsIntermediate { continuation.yield(.event(.image(result))) }
                    continuation.finish()
                case .final(.failure(let error), _):
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in operation.cancel() }
        }
        return ImageLoadEvents(stream: stream, partials: partials)
    }

    /// The callback form (SD's `loadImageWithURL:options:context:progress:completed:`).
    /// `completed` runs once — or, with ``WebImageOptions/refreshCached``, once for the cached
    /// image and once more if the server has new bytes — and never after ``CombinedOperation/cancel()``
    /// returns (a cancel answers ``WebImageError/cancelled`` inside the call). A memory hit
    /// answers before this returns.
    @discardableResult
    public func loadImage(
        with url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgressHandler? = nil,
        completed: @escaping @Sendable (Result<ImageResult, WebImageError>) -> Void
    ) -> CombinedOperation {
        let request: LoadRequest
        switch begin(url, options: options, context: context) {
        case .answered(let hit):
            completed(.success(hit))
            return .finishedMarker
        case .longWay(let prepared):
            request = prepared
        }
        if let hit = synchronousDiskHit(request) {
            completed(.success(hit))
            return .finishedMarker
        }
        return start(request, wantsProgress: progress != nil) { event in
            switch event {
            case .progress(let value): progress?(value)
            case .intermediate(let result): completed(.success(result))
            case .final(let result, let repeatsIntermediate): if !repeatsIntermediate { completed(result) }
            }
        }
    }

    /// The callback form with the default context — built only when the load misses memory.
    @discardableResult
    public func loadImage(
        with url: URL, options: WebImageOptions = [], progress: ImageLoaderProgressHandler? = nil,
        completed: @escaping @Sendable (Result<ImageResult, WebImageError>) -> Void
    ) -> CombinedOperation {
        if let hit = fastMemoryHit(url, options: options) {
            completed(.success(hit))
            return .finishedMarker
        }
        return loadImage(with: url, options: options, context: WebImageContext(), progress: progress, completed: completed)
    }

    /// Cancels every running load (each answers ``WebImageError/cancelled``; the callback form
    /// inside this call). A prefetch that stores to disk only runs its loads in its own tasks:
    /// ``ImagePrefetcher/cancelPrefetching()`` stops those.
    public func cancelAll() {
        let operations = running.withLock { $0.values }
        for operation in operations { operation.cancel() }
        sharedLoads.cancelAll()
    }

    /// Whether any load is running.
    public var isRunning: Bool { running.withLock { !$0.isEmpty } || sharedLoads.count > 0 }

    /// Takes `url` off the blocklist.
    public func removeFailedURL(_ url: URL) { failedURLs.remove(url) }
    /// Empties the blocklist.
    public func removeAllFailedURLs() { failedURLs.removeAll() }
    /// Whether `url` is on the blocklist.
    public func isFailedURL(_ url: URL) -> Bool { failedURLs.contains(url) }

    // MARK: - Internals

    enum Beginning {
        /// A memory hit, answered on the caller's thread (SD's synchronous memory query).
        case answered(ImageResult)
        case longWay(LoadRequest)
    }

    /// How a load starts: a memory hit, or the prepared request.
    func begin(_ url: URL, options: WebImageOptions, context: WebImageContext) -> Beginning {
        if let hit = fastMemoryHit(url, options: options, context: context) { return .answered(hit) }
        let request = prepare(url: url, options: options, context: context)
        if let hit = memoryHit(request) { return .answered(hit) }
        return .longWay(request)
    }

    /// A memory hit for a load whose key is its URL's absolute string, found without building a
    /// ``LoadRequest`` (the common case; see ManagerBenchmarks). `nil` sends the load the long way.
    private func fastMemoryHit(_ url: URL, options: WebImageOptions, context: WebImageContext) -> ImageResult? {
        guard context.imageCache == nil, context.cacheKeyFilter == nil, context.imageTransformer == nil,
              context.thumbnailPixelSize == nil, context.queryCacheType.includesMemory
        else { return nil }
        return fastMemoryHit(url, options: options)
    }

    /// ``fastMemoryHit(_:options:context:)`` for the default context, which the context-less
    /// overloads never build on a hit (its nine optional existentials cost more than the rest of a hit).
    private func fastMemoryHit(_ url: URL, options: WebImageOptions) -> ImageResult? {
        guard let cache = memoryCache, plainKeys.load(ordering: .acquiring),
              LoadRequest.allowsMemoryHit(options: options),
              options.contains(.retryFailed) || !failedURLs.contains(url),
              let image = cache.imageFromMemoryCache(forKey: url.absoluteString)
        else { return nil }
        instrumentation.loadStarted(url)
        instrumentation.cacheHit(.memory)
        return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
    }

    /// ``WebImageOptions/queryDiskDataSync`` / ``WebImageOptions/queryMemoryDataSync`` in the
    /// callback form: the cache is read (and a disk hit decoded) on the caller's thread, so a hit
    /// answers before the call returns. A miss goes the long way.
    private func synchronousDiskHit(_ request: LoadRequest) -> ImageResult? {
        guard !request.options.isDisjoint(with: [.queryDiskDataSync, .queryMemoryDataSync]),
              request.options.isDisjoint(with: [.fromLoaderOnly, .refreshCached]),
              let key = request.key, let cache = request.cache as? ImageCache, !isBlocked(request)
        else { return nil }
        guard let result = queryImageSynchronously(
            in: cache, forKey: key, options: request.cacheQueryOptions.union(.queryDiskDataSync),
            decodeOptions: request.fullKeyDecodeOptions, cacheType: request.context.queryCacheType, request: request),
            let image = result.image
        else { return nil }
        instrumentation.loadStarted(request.url)
        instrumentation.cacheHit(result.cacheType)
        return ImageResult(image: image, data: result.data, cacheType: result.cacheType, url: request.url)
    }

    /// The memory path for any key, counted like any load.
    private func memoryHit(_ request: LoadRequest) -> ImageResult? {
        guard !isBlocked(request), let hit = request.memoryHit() else { return nil }
        instrumentation.loadStarted(request.url)
        instrumentation.cacheHit(.memory)
        return hit
    }

    /// Runs `request` for the callback form: the operation is the one gate its caller's events go
    /// through, registered for ``cancelAll()``; its task waits on the load.
    func start(
        _ request: LoadRequest, wantsProgress: Bool = true, sink: @escaping @Sendable (CombinedOperation.Event) -> Void
    ) -> CombinedOperation {
        let box = Mutex<ObjectIdentifier?>(nil)
        let operation = CombinedOperation(sink: sink) { [weak self] in
            guard let id = box.withLock({ $0 }) else { return }
            _ = self?.running.withLock { $0.removeValue(forKey: id) }
        }
        let id = ObjectIdentifier(operation)
        running.withLock { $0[id] = operation }
        box.withLock { $0 = id }
        var caller = LoadCaller(intermediate: { operation.send(.intermediate($0)) })
        if wantsProgress { caller.progress = { operation.send(.progress($0)) } }
        operation.attach(Task {
            switch await longWay(request, caller: caller) {
            case .success(let answer): operation.finish(.success(answer.result), repeatsIntermediate: answer.repeatsIntermediate)
            case .failure(let error): operation.finish(.failure(error))
            }
        })
        return operation
    }
}

extension CombinedOperation {
    /// Returned for loads answered before the call returned; cancelling it does nothing.
    static let finishedMarker: CombinedOperation = {
        let operation = CombinedOperation(sink: { _ in })
        operation.finish(.failure(.cancelled))
        return operation
    }()
}
