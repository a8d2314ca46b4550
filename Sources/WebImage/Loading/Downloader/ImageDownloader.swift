import AsyncHTTPClient
import Foundation
import HTTPTypes
import Synchronization

/// Downloads images over HTTP(S) (SDWebImage's `SDWebImageDownloader`).
///
/// One download per URL however many callers ask (one shared run: queue slot → transfer →
/// decode); a callback caller gets a ``DownloadToken``, an awaiting one waits on the run itself.
/// Downloads wait in the downloader's own queue (concurrency limit, FIFO or LIFO, priorities — a
/// more urgent caller joining a waiting download moves it up —, suspend). One carrier per downloader, chosen when it is made: AsyncHTTPClient
/// — its own `HTTPClient`, or one the app already has (``init(config:client:)``) — or the lean
/// HTTP/1.1 client (``DownloaderConfig/Transport/http1``). ``shutdown()`` ends a downloader's work
/// and waits for its client to close; one dropped without it closes its client on the way out,
/// and ``shared`` lives as long as the process.
public final class ImageDownloader: ImageLoader {
    /// The downloader the shared ``ImageLoadersManager`` uses, with the default config.
    public static let shared = ImageDownloader()

    static let shutDown = WebImageError.invalidDownloadOperation(reason: "the downloader has been shut down")
    static let requestRefused = WebImageError.invalidDownloadOperation(reason: "the request modifier returned nil")

    public let config: DownloaderConfig
    let queue: DownloadQueue
    let hub = DownloaderEventHub()
    /// What its downloads share.
    let environment: DownloadEnvironment
    /// The downloads in flight, by what lets callers share one.
    let downloads = Downloads(whenAbandoned: .cancel)
    private let isShutDown = Atomic<Bool>(false)
    /// The headers every request starts with.
    private let headers: Mutex<HTTPFields>

    public convenience init(config: DownloaderConfig = .default) {
        if config.transport == .http1 {
            self.init(config: config, carrier: HTTP1Transport(config: config))
        } else {
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: AsyncHTTPClientCarrier.clientConfiguration(config))
            self.init(config: config, carrier: AsyncHTTPClientCarrier(config: config, client: client, ownsClient: true))
        }
    }

    /// A downloader on the app's own `HTTPClient` (shared with its other HTTP work: one connection
    /// pool, one event loop group). The app keeps owning it: ``shutdown()`` leaves it running.
    /// The client's configuration then governs connect timeouts, proxies and TLS defaults, and a
    /// client that follows redirects itself hands over only the last response (one that does not
    /// leaves them to the downloader's `RedirectChain`); everything else in `config` (idle timeout
    /// per request, size limit, status and content-type checks, headers, queue) applies either way.
    /// With a ``DownloaderConfig/hopPolicy`` every hop goes on clients the downloader makes from
    /// `config` instead, so that no redirect escapes the policy.
    public convenience init(config: DownloaderConfig = .default, client: HTTPClient) {
        self.init(config: config, carrier: AsyncHTTPClientCarrier(config: config, client: client, ownsClient: false))
    }

    private init(config: DownloaderConfig, carrier: any Carrier) {
        self.config = config
        var headers: HTTPFields = [.accept: DownloaderConfig.defaultAccept, .userAgent: config.userAgent]
        headers.overlay(config.httpHeaders)
        self.headers = Mutex(headers)
        queue = DownloadQueue(maxConcurrent: config.maxConcurrentDownloads, order: config.executionOrder)
        environment = DownloadEnvironment(carrier: carrier, config: config, queue: queue, events: hub)
    }

    /// The lean client, when it is this downloader's carrier.
    var http1: HTTP1Transport? { environment.carrier as? HTTP1Transport }

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
        let callbacks = LoadCallbacks(progress: progress, completion: completed)
        var forward: ImageLoaderProgressHandler?
        if callbacks.wantsProgress { forward = { @Sendable in callbacks.deliverProgress($0) } }
        let caller = DownloadCaller(progress: forward, priority: DownloadPriority(options))
        return join(url, options: options, context: context, caller: caller).map {
            DownloadToken(url: url, caller: caller, ticket: $0, callbacks: callbacks)
        }
    }

    /// The async load: no callback, no gate — the caller waits on the download's run itself.
    public func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError> {
        let caller = DownloadCaller(progress: progress, priority: DownloadPriority(options))
        switch join(url, options: options, context: context, caller: caller) {
        case .success(let ticket): return await ticket.value() ?? .failure(.cancelled)
        case .failure(let error): return .failure(error)
        }
    }

    /// Joins `caller` to the download of `url` in flight, or starts one (the request built, by
    /// app code, outside any lock); fails before any download exists for a bad URL, a request the
    /// modifier refused, or a downloader shut down.
    private func join(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, caller: DownloadCaller
    ) -> Result<DownloadTicket, WebImageError> {
        guard canRequestImage(for: url), let host = url.host(percentEncoded: true), !host.isEmpty else {
            return .failure(.invalidURL(url.absoluteString))
        }
        guard !isShutDown.load(ordering: .acquiring) else { return .failure(Self.shutDown) }
        let environment = environment
        do throws(WebImageError) {
            return .success(try downloads.join(DownloadShareKey(url: url, options: options, context: context), member: caller) {
                () throws(WebImageError) in
                let builder = DownloadRequestBuilder(headers: httpHeaders, environment: environment, options: options, context: context)
                guard let request = builder.request(for: url) else { throw Self.requestRefused }
                let run = DownloadRun(
                    url: url, request: request, builder: builder, options: options, context: context, environment: environment,
                    first: caller)
                return run
            })
        } catch {
            return .failure(error)
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
        // Every download is told before any freed slot starts one about to be cancelled.
        queue.holdingStarts { downloads.cancelAll() }
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
        let carrier = environment.carrier
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in carrier.shutdown { done.resume() } }
    }

    /// A downloader dropped without ``shutdown()`` still lets its own client go: SDWebImage's users
    /// never shut a downloader down, and AsyncHTTPClient leaks a client nobody shuts down (a debug
    /// build traps on it). The client keeps itself alive until its shutdown has finished.
    deinit {
        if stop() { environment.carrier.shutdown {} }
    }

    /// Marks the downloader shut down and stops its work: false when it already was.
    private func stop() -> Bool {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        cancelAllDownloads()
        hub.finishAll()
        return true
    }
}

/// The downloads of one downloader, shared by key.
typealias Downloads = SharedTasks<DownloadShareKey, DownloadCaller, Result<ImageLoaderResult, WebImageError>>
typealias DownloadTicket = SharedTicket<DownloadCaller, Result<ImageLoaderResult, WebImageError>>
