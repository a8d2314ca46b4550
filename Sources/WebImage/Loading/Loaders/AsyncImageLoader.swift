import Foundation

/// An ``ImageLoader`` written as one async function: awaiting callers call it directly, and the
/// callback form (an operation that answers once and never after cancel) comes with it, on the
/// same gate every WebImage loader uses. Cancelling the operation cancels the task running
/// ``load(_:options:context:progress:)``. Callers use ``ImageLoader``'s `loadImage` or
/// `requestImage` as with any loader.
public protocol AsyncImageLoader: ImageLoader {
    /// Loads `url`; throws ``WebImageError/cancelled`` when the task is cancelled.
    func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult
}

extension AsyncImageLoader {
    @discardableResult
    public func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        let callbacks = LoadCallbacks(progress: progress, completion: completed)
        let progress: ImageLoaderProgressHandler? = callbacks.wantsProgress ? { @Sendable in callbacks.deliverProgress($0) } : nil
        callbacks.attach(Task {
            callbacks.complete(await loadImageResult(with: url, options: options, context: context, progress: progress))
        })
        return callbacks
    }

    /// The load itself, for an awaiting caller: no callback, no gate.
    public func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError> {
        do throws(WebImageError) {
            return .success(try await load(url, options: options, context: context, progress: progress))
        } catch {
            return .failure(error)
        }
    }
}
