import Foundation
import WebImage

/// The server's source loader: WebImage's `ImageDownloader` — size limit, timeouts, status and
/// content checks, redirects, typed errors, the decode — with the SSRF check as its hop policy
/// (`SourceHopPolicy`), so every hop, the first and each redirect, is resolved, checked and
/// sent to the checked address only.
///
/// A refused source fails with `WebImageError/refusedByHopPolicy(reason:)` (2000), a typed
/// refusal the server answers with 403; its reason starts with ``refusalPrefix`` for the log.
public struct SourceLoader: AsyncImageLoader {
    public static let refusalPrefix = "source refused: "

    let downloader: ImageDownloader

    /// Downloads with `config`, every hop checked by `resolver`.
    init(config: DownloaderConfig, resolver: SourceResolver) {
        var config = config
        config.hopPolicy = SourceHopPolicy(resolver: resolver)
        // Source loads are bulk work: the lean client, which pins each hop as AsyncHTTPClient would.
        config.transport = .http1
        downloader = ImageDownloader(config: config)
    }

    public func canRequestImage(for url: URL) -> Bool {
        Origin.Scheme(of: url) != nil
    }

    /// A source that failed once is not blocked: another request may be signed for it later, and
    /// origins recover. The result cache never stores failures anyway.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool { false }

    public func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult {
        try await downloader.loadImage(with: url, options: options, context: context, progress: progress)
    }

    /// Closes the source connections; later loads fail.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
