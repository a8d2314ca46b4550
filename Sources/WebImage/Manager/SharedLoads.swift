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
/// and the memory cache (not yet filled). A load that cannot
/// share runs alone, under a key of its own, so ``ImageManager/cancelAll()`` reaches every load.
///
/// Each caller keeps its own answer: it leaves with ``WebImageError/cancelled`` when its task is
/// cancelled, and the shared work is cancelled only when the last caller has left.
typealias SharedLoads = SharedTasks<LoadKey, LoadCaller, Result<LoadAnswer, WebImageError>>

/// Which loads run as one.
enum LoadKey: Hashable, Sendable {
    /// Every load of an image asked alike.
    case shared(LoadShareKey)
    /// One load that cannot share, numbered.
    case alone(UInt64)
}

/// One caller of a long-way load: where its progress and a refreshCached load's cached image go
/// (the work hands each to every caller waiting).
struct LoadCaller: Sendable {
    var progress: ImageLoaderProgressHandler?
    var intermediate: (@Sendable (ImageResult) -> Void)?

    /// A caller that wants the answer only.
    static let answerOnly = LoadCaller()
}

/// A long-way load's last answer; `repeatsIntermediate`: it is the refreshCached image already
/// sent (the server said 304), which the callback form does not deliver twice.
struct LoadAnswer: Sendable {
    let result: ImageResult
    let repeatsIntermediate: Bool
}
