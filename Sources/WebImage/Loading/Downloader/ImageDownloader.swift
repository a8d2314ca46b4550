import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOPosix
import Synchronization

/// Downloads images over HTTP(S) on AsyncHTTPClient (SDWebImage's `SDWebImageDownloader`).
///
/// One `DownloadOperation` per URL however many callers ask; each caller gets a
/// ``DownloadToken``. Operations wait in the downloader's own queue (concurrency limit, FIFO or
/// LIFO, priorities, suspend). One `HTTPClient` per downloader — its own, or one the app already
/// has (``init(config:client:)``). ``shutdown()`` ends a downloader's work and waits for its
/// client to close; one dropped without it closes its client on the way out, and ``shared`` lives
/// as long as the process.
public final class ImageDownloader: ImageLoader {
    /// The downloader the shared ``ImageLoadersManager`` uses, with the default config.
    public static let shared = ImageDownloader()

    static let shutDown = WebImageError.invalidDownloadOperation(reason: "the downloader has been shut down")
    static let requestRefused = WebImageError.invalidDownloadOperation(reason: "the request modifier returned nil")

    public let config: DownloaderConfig
    private let client: HTTPClient
    /// Whether ``shutdown()`` shuts the client down: only one this downloader made.
    private let ownsClient: Bool
    let queue: DownloadQueue
    /// The lean client: when the config asks for it and the client is the downloader's own, or
    /// when a hop policy must see every hop.
    let http1: HTTP1Transport?
    let hub = DownloaderEventHub()
    /// What its operations share, the operations in flight among it.
    let environment: DownloadEnvironment
    /// The headers every request starts with.
    private let headers: Mutex<HTTPFields>

    public convenience init(config: DownloaderConfig = .default) {
        self.init(config: config, client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration(config)),
                  ownsClient: true)
    }

    /// A downloader on the app's own `HTTPClient` (shared with its other HTTP work: one connection
    /// pool, one event loop group). The app keeps owning it: ``shutdown()`` leaves it running.
    /// The client's configuration then governs connect timeouts, proxies and TLS defaults, and a
    /// client that follows redirects itself hands over only the last response (one that does not
    /// leaves them to the downloader's `RedirectChain`); everything else in `config` (idle timeout
    /// per request, size limit, status and content-type checks, headers, queue) applies either way.
    public convenience init(config: DownloaderConfig = .default, client: HTTPClient) {
        self.init(config: config, client: client, ownsClient: false)
    }

    private init(config: DownloaderConfig, client: HTTPClient, ownsClient: Bool) {
        self.config = config
        self.client = client
        self.ownsClient = ownsClient
        // A hop policy must see every hop, so its downloads go on the client whose hops we send.
        http1 = (ownsClient && config.transport == .http1) || config.hopPolicy != nil ? HTTP1Transport(config: config) : nil
        var headers: HTTPFields = [.accept: DownloaderConfig.defaultAccept, .userAgent: config.userAgent]
        headers.overlay(config.httpHeaders)
        self.headers = Mutex(headers)
        queue = DownloadQueue(maxConcurrent: config.maxConcurrentDownloads, order: config.executionOrder)
        environment = DownloadEnvironment(client: client, http1: http1, config: config, queue: queue, events: hub)
    }

    /// The `HTTPClient` configuration for `config` (also the base of WebImageServer's pinned clients).
    package static func clientConfiguration(_ config: DownloaderConfig) -> HTTPClient.Configuration {
        let timeout = TimeAmount.bound(seconds: config.downloadTimeout)
        // No client read timeout: each request keeps its own idle timer (DownloadRequest.timeout,
        // which starts as downloadTimeout and a request modifier may change).
        var configuration = HTTPClient.Configuration(
            // Redirects are the transfer's (RedirectChain): one rule set and one hop policy on every client.
            redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: nil))
        // A refused connection fails at once, as with URLSession, instead of being retried until
        // the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        configuration.connectionPool.idleTimeout = .bound(seconds: config.idleConnectionTimeout)
        configuration.tlsConfiguration = config.clientTLSConfiguration
        return configuration
    }

    // MARK: ImageLoader

    public func canRequestImage(for url: URL) -> Bool {
        url.hasHTTPScheme
    }

    @discardableResult
    public func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        switch downloadImage(with: url, options: options, context: context, progress: progress, completed: completed) {
        case .success(let token): token
        case .failure(let error): LoadCallbacks.failed(error, completion: completed)
        }
    }

    /// SD's `downloadImageWithURL:options:context:progress:completed:`: joins the download of
    /// `url` in flight, or queues a new one. A failure before any download exists (bad URL, the
    /// request modifier said no, shut down) is returned here and `completed` is not called.
    public func downloadImage(
        with url: URL, options: DownloaderOptions = [], context: ImageLoaderContext = .default,
        progress: ImageLoaderProgressHandler? = nil, completed: @escaping ImageLoaderCompletion
    ) -> Result<DownloadToken, WebImageError> {
        download(url, options: options, context: context, callbacks: LoadCallbacks(progress: progress, completion: completed))
    }

    func download(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, callbacks: LoadCallbacks
    ) -> Result<DownloadToken, WebImageError> {
        guard canRequestImage(for: url), let host = url.host(percentEncoded: true), !host.isEmpty else {
            return .failure(.invalidURL(url.absoluteString))
        }
        let key = DownloadShareKey(url: url, options: options, context: context)
        if let token = join(key, callbacks: callbacks) { return token }
        // Built outside the lock: the modifier and the headers filter are the app's code.
        guard let request = makeRequest(for: url, options: options, context: context) else {
            return .failure(Self.requestRefused)
        }
        let operation = DownloadOperation(
            url: url, key: key, request: request, options: options, context: context, environment: environment)
        let outcome = environment.operations.withLock { state -> (Result<DownloadToken, WebImageError>, Bool) in
            if state.isShutDown { return (.failure(Self.shutDown), false) }
            // Someone may have started the same URL while the request was being built.
            if let token = state.joinable(key, callbacks) { return (.success(token), false) }
            state.byKey[key] = operation
            return (.success(operation.add(callbacks)!), true)
        }
        if outcome.1 { queue.enqueue(operation, priority: operation.priority) }
        return outcome.0
    }

    /// A token on the operation for `key` in flight, if it still takes callers.
    private func join(_ key: DownloadShareKey, callbacks: LoadCallbacks) -> Result<DownloadToken, WebImageError>? {
        environment.operations.withLock { state in
            if state.isShutDown { return .failure(Self.shutDown) }
            return state.joinable(key, callbacks).map { .success($0) }
        }
    }

    // MARK: Headers

    /// The headers every request starts with: `Accept`, `User-Agent` and the config's.
    public var httpHeaders: HTTPFields { headers.withLock { $0 } }

    /// Sets (or with `nil` removes) a header for every later request (SD's
    /// `setValue:forHTTPHeaderField:`).
    public func setValue(_ value: String?, forHTTPHeaderField field: HTTPField.Name) {
        headers.withLock { $0[field] = value }
    }

    public func value(forHTTPHeaderField field: HTTPField.Name) -> String? {
        headers.withLock { $0[field] }
    }

    // MARK: Queue

    /// Cancels every download; each caller gets ``WebImageError/cancelled``.
    public func cancelAllDownloads() {
        let operations = environment.operations.withLock { state in
            defer { state.byKey = [:] }
            return Array(state.byKey.values)
        }
        let finishers = operations.map { $0.prepareCancelAll() }
        finishers.forEach { $0() }
    }

    /// Downloads queued or running (SD's `currentDownloadCount`).
    public var currentDownloadCount: Int { queue.runningCount + queue.waitingCount }

    /// The queue's concurrency limit; raising it starts waiting downloads at once.
    public var maxConcurrentDownloads: Int {
        get { queue.maxConcurrent }
        set { queue.setMaxConcurrent(newValue) }
    }

    /// Stops starting queued downloads (running ones go on) until resumed (SD's `setSuspended:`).
    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { newValue ? queue.suspend() : queue.resume() }
    }

    // MARK: Events and lifetime

    /// Every download's start, response, stop and finish from now on.
    public func events() -> AsyncStream<DownloaderEvent> { hub.events() }

    /// Cancels everything, ends the event streams and shuts the HTTP client down if the downloader
    /// made it. Requests made afterwards fail with ``WebImageError/invalidDownloadOperation(reason:)``.
    /// Not needed for ``shared``, which lives as long as the process: shutting it down stops every
    /// later load through the shared manager.
    public func shutdown() async throws {
        guard stop() else { return }
        if ownsClient { try await client.shutdown() }
    }

    /// A downloader dropped without ``shutdown()`` still lets its own client go: SDWebImage's users
    /// never shut a downloader down, and AsyncHTTPClient leaks a client nobody shuts down (a debug
    /// build traps on it). The client keeps itself alive until its shutdown has finished.
    deinit {
        if stop(), ownsClient { client.shutdown { _ in } }
    }

    /// Marks the downloader shut down and stops its work: false when it already was.
    private func stop() -> Bool {
        let alreadyDown = environment.operations.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown
        }
        guard !alreadyDown else { return false }
        cancelAllDownloads()
        http1?.shutdown()
        hub.finishAll()
        return true
    }
}

extension ImageDownloader {
    /// The async load: its completion only resumes the awaiting task, so the operation answers it
    /// on the thread the response ended on instead of through its delivery queue.
    public func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError> {
        await LoadBridge.run { completion in
            let callbacks = LoadCallbacks(progress: progress, completion: completion, resumesTask: true)
            switch download(url, options: options, context: context, callbacks: callbacks) {
            case .success(let token): return token
            case .failure(let error): return LoadCallbacks.failed(error, completion: completion)
            }
        }
    }
}
