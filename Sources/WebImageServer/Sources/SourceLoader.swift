import Foundation
import Synchronization
import WebImage

/// The server's source loader: http(s) only, every hop resolved and checked by the
/// ``SourceResolver`` and fetched over a connection pinned to the checked address
/// (``PinnedClients``) — redirects are followed here, one checked hop at a time, never by the
/// HTTP client. Everything else — size limit, timeouts, status and content checks, typed errors,
/// the decode — is WebImage's ``ImageDownloader``.
///
/// A refused source fails with ``WebImageError/invalidDownloadOperation(reason:)`` (2000) whose
/// reason starts with ``refusalPrefix``; the server answers it with 403.
public struct SourceLoader: AsyncImageLoader {
    public static let refusalPrefix = "source refused: "

    let resolver: SourceResolver
    let clients: PinnedClients
    let maximumRedirects: Int

    init(resolver: SourceResolver, clients: PinnedClients, maximumRedirects: Int) {
        self.resolver = resolver
        self.clients = clients
        self.maximumRedirects = maximumRedirects
    }

    public func canRequestImage(for url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// A source that failed once is not blocked: another request may be signed for it later, and
    /// origins recover. The result cache never stores failures anyway.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool { false }

    public func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult {
        var current = url
        var visited: Set<URL> = [url]
        for _ in 0...maximumRedirects {
            let target: SourceResolver.Target
            do {
                target = try await resolver.resolve(current)
            } catch {
                throw .invalidDownloadOperation(reason: Self.refusalPrefix + error.description)
            }
            let location = RedirectCapture()
            var hopContext = context
            hopContext.responseModifier = location
            do {
                return try await clients.withDownloader(for: target) { downloader throws(WebImageError) in
                    try await downloader.loadImage(with: target.url, options: options, context: hopContext, progress: progress)
                }
            } catch .invalidDownloadStatusCode(let status) where (300...399).contains(status) && status != 304 {
                guard let next = location.next(from: target.url) else { throw .invalidDownloadStatusCode(status) }
                guard visited.insert(next).inserted else { throw .transport(.redirectLoop) }
                current = next
            }
        }
        throw .transport(.tooManyRedirects(limit: maximumRedirects))
    }
}

/// Remembers a redirect's `Location` while passing the response on unchanged (the downloader then
/// fails the hop with its 3xx status, and ``SourceLoader`` checks the next hop).
private final class RedirectCapture: DownloadResponseModifying {
    private let location = Mutex<String?>(nil)

    func modifiedResponse(_ response: DownloadResponse) -> DownloadResponse? {
        if (300...399).contains(response.statusCode) {
            location.withLock { $0 = response.headerFields[.location] }
        }
        return response
    }

    func next(from current: URL) -> URL? {
        guard let text = location.withLock({ $0 }), let next = URL(string: text, relativeTo: current) else { return nil }
        return next.absoluteURL
    }
}
