import Synchronization

/// What makes two loads the same work: the same image under the same key, decoded, transformed
/// and stored the same way, with the same appetite for progress.
struct LoadShareKey: Hashable, Sendable {
    let url: String
    let cacheKey: String?
    let options: WebImageOptions
    let decodeOptions: ImageDecodeOptions
    /// The context's coder, by its ``ImageCoder/coderKey``.
    let coder: String?
    let queryCacheType: ImageCacheType
    let storeCacheType: ImageCacheType
    let originalQueryCacheType: ImageCacheType
    let originalStoreCacheType: ImageCacheType
    let wantsProgress: Bool
}

/// One long-way load per ``LoadShareKey`` at a time, shared by every caller that asks for the same
/// image meanwhile (Nuke's task coalescing; SD shares only the download). It spans cache query,
/// download, decode, transform and the memory store, so the callers of a popular URL cost one
/// query, one transform and one store instead of one each — and a caller arriving while the
/// download is being delivered joins it instead of missing both the download (already ended)
/// and the memory cache (not yet filled), which used to cost a second request.
///
/// Each caller keeps its own answer: it leaves with ``WebImageError/cancelled`` when its task is
/// cancelled, and the shared work is cancelled only when the last caller has left.
typealias SharedLoads = SharedTasks<LoadShareKey, CombinedOperation, Result<ImageResult, WebImageError>>

extension SharedTasks where Key == LoadShareKey, Member == CombinedOperation, Value == Result<ImageResult, WebImageError> {
    convenience init() {
        self.init(whenAbandoned: .cancel)
    }

    /// The result of `work` for `key` — run for `caller` or joined if already running. `work`
    /// gets the operation standing for all callers (its progress goes to each of them).
    func result(
        for key: LoadShareKey, caller: CombinedOperation,
        work: @escaping @Sendable (CombinedOperation) async throws(WebImageError) -> ImageResult
    ) async -> Result<ImageResult, WebImageError> {
        await value(for: key, member: caller) { callers in
            // Not cancelled through this operation but through the work's task: its cancel takes its
            // delivery lock, which a progress fan-out holds while it waits for a caller's.
            let leader = CombinedOperation(wantsProgress: key.wantsProgress, sink: { event in
                guard case .progress = event else { return }
                for operation in callers() { operation.send(event) }
            })
            do throws(WebImageError) {
                return .success(try await work(leader))
            } catch {
                return .failure(error)
            }
        } ?? .failure(.cancelled)
    }
}
