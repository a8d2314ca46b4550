import Foundation
import Synchronization

/// A load that needs no network (`file:`, `data:`): read and decode in the decoding queue's turn.
/// Shared by ``FileLoader`` and ``DataURLLoader``.
enum LocalImageLoading {
    static func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?,
        read: @escaping @Sendable () -> Result<Data, WebImageError>
    ) async throws(WebImageError) -> ImageLoaderResult {
        // Cancelled while it waited for its turn: nothing to read for.
        let cancelled = CancelledFlag()
        let result: Result<ImageLoaderResult, WebImageError> = await withTaskCancellationHandler {
            await ImageWorkQueue.decoding.run { () -> Result<ImageLoaderResult, WebImageError> in
                guard !cancelled.isSet else { return .failure(.cancelled) }
                return read().flatMap { data -> Result<ImageLoaderResult, WebImageError> in
                    let size = Int64(data.count)
                    progress?(ImageLoaderProgress(receivedSize: size, expectedSize: size, url: url))
                    return LoaderDecoding.decode(data, url: url, options: options, context: context)
                        .map { ImageLoaderResult(image: $0, data: data) }
                }
            }
        } onCancel: {
            cancelled.set()
        }
        return try result.get()
    }
}

/// Set once the load's task is cancelled.
private final class CancelledFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
