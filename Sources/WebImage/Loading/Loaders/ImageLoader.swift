import Foundation

/// Loads images for URLs of some schemes (SDWebImage's `SDImageLoader`): the downloader for
/// `http(s)`, ``FileLoader`` for `file:` and plain paths, ``DataURLLoader`` for `data:`, and
/// whatever an app adds to an ``ImageLoadersManager``.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (usually by scheme).
    func canRequestImage(for url: URL) -> Bool

    /// The loader that would take `url`, or nil: by default this one when ``canRequestImage(for:)``
    /// says so. A loader that hands URLs on to others (``ImageLoadersManager``) answers with the
    /// one it picks, so a caller that checks and then loads picks once, not twice.
    func loader(for url: URL) -> (any ImageLoader)?

    /// Starts loading `url`. `progress` may be called any number of times before `completed`,
    /// which is called exactly once — with ``WebImageError/cancelled`` when the returned
    /// operation is cancelled first. Both run on a background thread, never on a NIO event loop.
    @discardableResult
    func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation

    /// Whether the manager should stop retrying `url` after `error` (SD's
    /// `shouldBlockFailedURLWithURL:error:`). The default is ``WebImageError/shouldBlockFailedURL``.
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool

    /// The load for an awaiting task, which ``loadImage(with:options:context:progress:)`` calls. The
    /// default starts ``requestImage(with:options:context:progress:completed:)`` and awaits its
    /// completion (for a loader written only with callbacks); every WebImage loader — the
    /// downloader, ``AsyncImageLoader``s, the loaders manager — answers the task directly.
    func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError>
}

extension ImageLoader {
    public func loader(for url: URL) -> (any ImageLoader)? {
        canRequestImage(for: url) ? self : nil
    }

    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        error.shouldBlockFailedURL
    }

    /// Loads `url`; cancelling the calling task cancels the load (``WebImageError/cancelled``).
    public func loadImage(
        with url: URL, options: DownloaderOptions = [], context: ImageLoaderContext = .default,
        progress: ImageLoaderProgressHandler? = nil
    ) async throws(WebImageError) -> ImageLoaderResult {
        try await loadImageResult(with: url, options: options, context: context, progress: progress).get()
    }

    public func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError> {
        await LoadBridge.run { completion in
            requestImage(with: url, options: options, context: context, progress: progress, completed: completion)
        }
    }
}

