import Foundation

/// A load that needs no network (`file:`, `data:`): read and decode in the decoding queue's
/// turn, complete once. Shared by ``FileLoader`` and ``DataURLLoader``.
extension LoadCallbacks {
    /// A started load: `read` and the decode run in the decoding queue's turn, then the result is delivered.
    static func loadLocally(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion,
        read: @escaping @Sendable () -> Result<Data, WebImageError>
    ) -> LoadCallbacks {
        let callbacks = LoadCallbacks(progress: progress, completion: completed)
        ImageWorkQueue.decoding.async {
            guard !callbacks.isCompleted else { return }
            let result = read().flatMap { data -> Result<ImageLoaderResult, WebImageError> in
                let size = Int64(data.count)
                callbacks.deliverProgress(ImageLoaderProgress(receivedSize: size, expectedSize: size, url: url))
                return LoaderDecoding.decode(data, url: url, options: options, context: context)
                    .map { ImageLoaderResult(image: $0, data: data) }
            }
            // Answered from a GCD thread, as downloads are: a continuation resumed straight from
            // the worker thread gave ThreadSanitizer no happens-before edge to the awaiting task
            // (two reports in ImageLoadersManagerTests), though the gate's lock orders it.
            DispatchQueue.global().async { callbacks.complete(result) }
        }
        return callbacks
    }
}
