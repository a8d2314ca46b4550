import Foundation
import HTTPTypes

/// How an ``ImageDownloader`` downloads (SDWebImage's `SDWebImageDownloaderConfig`), fixed when
/// the downloader is made. Defaults are SD's where SD has one.
public struct DownloaderConfig: Sendable {
    /// Which queued download starts next when a slot frees up.
    public enum ExecutionOrder: Sendable, Hashable {
        /// First in, first out (SD's default).
        case fifo
        /// Last in, first out: the newest request (the cell now on screen) goes first.
        case lifo
    }

    /// The HTTP client that carries downloads (everything on a downloader made with the app's own
    /// `HTTPClient` goes through that client).
    public enum Transport: Sendable, Hashable {
        /// AsyncHTTPClient for every request (the default).
        case asyncHTTPClient
        /// A lean HTTP/1.1 client on SwiftNIO for `http` and `https` (``ImageDownloader`` keeps its
        /// connections): cheaper per request than AsyncHTTPClient, for bulk work
        /// (`webimage prefetch` uses it). TLS, redirects, timeouts, limits and checks behave the same.
        /// An ``ImagePrefetcher`` over it runs its loads, and its callbacks, on the client's event loops.
        case http1
    }

    /// Which client carries downloads. Default ``Transport/asyncHTTPClient``.
    public var transport: Transport = .asyncHTTPClient

    /// Downloads in flight at once; the rest wait in the downloader's queue. Default 6.
    public var maxConcurrentDownloads: Int = 6
    /// Idle timeout in seconds: connecting, and waiting for the next byte (SD's
    /// `downloadTimeout`, which is `NSURLRequest.timeoutInterval`). Default 15; setting 0 means
    /// the default, as in SD (its downloader turns a 0 timeout into 15 s), so it reads back as 15.
    public var downloadTimeout: TimeInterval {
        get { storedDownloadTimeout == 0 ? Self.defaultDownloadTimeout : storedDownloadTimeout }
        set { storedDownloadTimeout = newValue }
    }
    /// What a `downloadTimeout` of 0 stands for: SD's 15 s.
    public static let defaultDownloadTimeout: TimeInterval = 15
    private var storedDownloadTimeout: TimeInterval = DownloaderConfig.defaultDownloadTimeout
    /// The most one download may take from start to last byte; `nil` = no limit (URLSession's
    /// resource timeout is 7 days).
    public var resourceTimeout: TimeInterval?
    /// How long a kept-alive connection may sit unused before it is closed, in seconds. Default
    /// 60 (AsyncHTTPClient's). Applies to a client the downloader makes.
    public var idleConnectionTimeout: TimeInterval = 60
    public var executionOrder: ExecutionOrder = .fifo
    /// Status codes that count as success. Default 200–299; `304` is handled separately
    /// (``ImageLoaderContext/cachedData``).
    public var acceptableStatusCodes = IndexSet(integersIn: 200..<300)
    /// MIME types that count as success (`image/jpeg`, or `image/*` for a whole family);
    /// `nil` = any, including none (SD's default, since many servers send `application/octet-stream`).
    public var acceptableContentTypes: Set<String>?
    /// Smallest change in the fraction received (0–1) between two progress callbacks (SD's
    /// `minimumProgressInterval`); 0 = every chunk. The first and the last are always sent.
    public var minimumProgressInterval: Double = 0
    /// Largest body accepted, checked against `Content-Length` as soon as the head arrives and
    /// against the bytes received while streaming. Default 50 MB.
    public var maximumResponseSize: Int64 = 50 * 1024 * 1024
    /// Where bodies past a size wait for their decode instead of in memory (``BodySpill``); `nil`
    /// (the default) keeps every body in memory. For loads bound for a disk cache: `webimage`
    /// points it at its cache folder, so 64 large downloads in flight do not sit in the process.
    public var bodySpill: BodySpill?
    /// Redirects followed before failing with ``TransportError/tooManyRedirects(limit:)``;
    /// 0 = none. Loops fail at once with ``TransportError/redirectLoop``.
    public var maximumRedirects: Int = 10
    /// Asked before every hop, the first request included; `nil` = every hop allowed. Either
    /// ``Transport`` pins a hop to the address the policy gives; on an app's `HTTPClient` every hop
    /// goes on clients the downloader makes, so none it would follow on its own goes out unasked.
    public var hopPolicy: (any DownloadHopPolicy)?
    /// The `User-Agent` sent unless the headers say otherwise.
    public var userAgent: String = DownloaderConfig.defaultUserAgent
    /// Headers added to every request, over the defaults (`Accept`, `User-Agent`).
    public var httpHeaders: HTTPFields = [:]
    /// Basic-auth credentials, each sent only to its own hosts and over https unless it allows
    /// plain http (SD's `username`/`password`, which go to every host). The first that applies wins.
    public var credentials: [DownloadCredential] = []
    /// Last word on each request's headers (SD's `headersFilter`).
    public var headersFilter: (@Sendable (URL, HTTPFields) -> HTTPFields)?
    /// Applied to every request — the first and each redirect's — unless the context has its own.
    public var requestModifier: (any DownloadRequestModifying)?
    /// Asked about every redirect unless the context has its own (Kingfisher's redirect handler).
    public var redirectHandler: (any DownloadRedirectHandling)?
    /// Applied to every response unless the context has its own.
    public var responseModifier: (any DownloadResponseModifying)?
    /// Applied to every body unless the context has its own.
    public var decryptor: (any DownloadDecrypting)?
    /// Where cookies live for requests with ``DownloaderOptions/handleCookies``.
    public var cookieJar: CookieJar = .shared
    /// PEM files of certificate authorities trusted for `https` besides the system's roots: the
    /// private CA of an app's own image servers (curl's `--cacert`, except that curl's replaces
    /// the system's roots). A file that cannot be loaded fails each `https` download with
    /// ``TransportError/secureConnectionFailed(reason:)``. Applies to a client the downloader makes.
    public var additionalTrustedCertificateFiles: [String] = []

    public init() {}

    public static let `default` = DownloaderConfig()

    /// SD's default `Accept`: WebP first, then any image, then anything.
    public static let defaultAccept = "image/webp,image/*,*/*;q=0.8"
    public static let defaultUserAgent = "WebImage/1.0 (Linux; AsyncHTTPClient)"

    /// Whether `mimeType` is accepted (`nil` = the response had no Content-Type).
    func accepts(contentType mimeType: String?) -> Bool {
        Self.accepts(contentType: mimeType, among: acceptableContentTypes)
    }

    /// Whether the content type is among `acceptable` (nil: any), directly or by its `family/*` or `*/*`.
    static func accepts(contentType: @autoclosure () -> String?, among acceptable: Set<String>?) -> Bool {
        // The type is read from the fields only when there is a list to check it against (none by default).
        guard let acceptable else { return true }
        guard let mimeType = contentType() else { return false }
        if acceptable.contains(mimeType) { return true }
        let family = mimeType.prefix { $0 != "/" } + "/*"
        return acceptable.contains(String(family)) || acceptable.contains("*/*")
    }
}
