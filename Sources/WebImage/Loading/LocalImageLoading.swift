import Dispatch
import Foundation
import Synchronization

/// A load that needs no network (`file:`, `data:`): read and decode in the decoding queue's
/// turn, complete once. Shared by ``FileLoader`` and ``DataURLLoader``.
final class LocalLoadOperation: WebImageOperation {
    private let callbacks: LoadCallbacks
    /// Serialises deliveries so a cancel and a result never both reach the caller.
    private let delivery = DispatchQueue(label: "WebImage.LocalLoad")
    private let cancelled = Atomic<Bool>(false)

    init(progress: ImageLoaderProgressHandler?, completion: @escaping ImageLoaderCompletion) {
        callbacks = LoadCallbacks(progress: progress, completion: completion)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        delivery.async { [callbacks] in callbacks.complete(.failure(.cancelled)) }
    }

    /// A started load: `read` and the decode run on a global queue, then the result is delivered.
    static func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion,
        read: @escaping @Sendable () -> Result<Data, WebImageError>
    ) -> LocalLoadOperation {
        let operation = LocalLoadOperation(progress: progress, completion: completed)
        operation.start(url: url, options: options, context: context, read: read)
        return operation
    }

    /// Reads with `read` and decodes in the decoding queue's turn, then delivers.
    private func start(url: URL, options: DownloaderOptions, context: ImageLoaderContext,
               read: @escaping @Sendable () -> Result<Data, WebImageError>) {
        ImageWorkQueue.decoding.async { [self] in
            guard !isCancelled else { return }
            let result = read().flatMap { data -> Result<ImageLoaderResult, WebImageError> in
                let size = Int64(data.count)
                delivery.async { [callbacks] in
                    callbacks.deliverProgress(ImageLoaderProgress(receivedSize: size, expectedSize: size, url: url))
                }
                return LoaderDecoding.decode(data, url: url, options: options, context: context)
                    .map { ImageLoaderResult(image: $0, data: data) }
            }
            delivery.async { [callbacks] in callbacks.complete(result) }
        }
    }
}
