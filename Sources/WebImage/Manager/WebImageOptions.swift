/// Switches for one load (SDWebImage's `SDWebImageOptions`; the raw values are SDWebImage 5's bits,
/// which differ from SDWebImage 4's from `1 << 2` on: convert 4's by name).
/// Flags that only mean something on UIKit/AppKit — `continueInBackground`, `preloadAllFrames`,
/// `matchAnimatedImageClass`, `transformVectorImage`, `waitTransition` — are left out rather than
/// accepted and ignored, and so is `avoidDecodeImage`: it skips UIKit's deferred force-decode, and
/// WebImage images are always decoded (a cache user who wants bytes only has
/// ``ImageCacheQueryOptions/avoidDecodeImage``).
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Try a URL again even if it failed before in a way that blocklisted it; a success takes it
    /// off the blocklist.
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Queue the download behind normal ones (the prefetcher's default).
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Deliver partial images while the bytes arrive.
    public static let progressiveLoad = WebImageOptions(rawValue: 1 << 2)
    /// Answer with the cached image, then revalidate it with the server (`If-None-Match` /
    /// `If-Modified-Since` from the stored validators): a 304 gives no second answer, new bytes do.
    /// A refresh of a cached image loads without ``progressiveLoad``, as in SD.
    public static let refreshCached = WebImageOptions(rawValue: 1 << 3)
    /// Send and store cookies (``DownloaderOptions/handleCookies``).
    public static let handleCookies = WebImageOptions(rawValue: 1 << 5)
    /// Accept any TLS certificate for this load (self-signed test servers only).
    public static let allowInvalidSSLCertificates = WebImageOptions(rawValue: 1 << 6)
    /// Queue the download ahead of normal ones.
    public static let highPriority = WebImageOptions(rawValue: 1 << 7)
    /// Binding: show the placeholder only after the load failed, not while it runs.
    public static let delayPlaceholder = WebImageOptions(rawValue: 1 << 8)
    /// Apply the transformer to animated images too (by default they are left as they are).
    public static let transformAnimatedImage = WebImageOptions(rawValue: 1 << 9)
    /// Binding: do not set the image on the target; the completion does it.
    public static let avoidAutoSetImage = WebImageOptions(rawValue: 1 << 10)
    /// Decode large images scaled down to ``WebImageContext/imageScaleDownLimitBytes``.
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 11)
    /// On a memory hit, also read the encoded bytes from disk.
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 12)
    /// Callback form: read the cache (memory, then disk bytes) on the caller's thread, answering a
    /// hit before the call returns.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 13)
    /// Callback form: read and decode a disk hit on the caller's thread, answering before the
    /// call returns.
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 14)
    /// Never download: a cache miss ends the load with ``WebImageError/notInCache``.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 15)
    /// Skip the cache query and download (the result is still stored).
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 16)
    /// Binding: run the transition even for memory hits.
    public static let forceTransition = WebImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of animations.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 19)
    /// Answer only after the cache stores are done (by default the answer comes first).
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 22)
    /// Binding: a new load on a target does not cancel the one already running there.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 24)

    /// The loader's share of these options.
    var downloaderOptions: DownloaderOptions {
        var options: DownloaderOptions = []
        if contains(.lowPriority) { options.insert(.lowPriority) }
        if contains(.highPriority) { options.insert(.highPriority) }
        if contains(.progressiveLoad) { options.insert(.progressiveLoad) }
        if contains(.handleCookies) { options.insert(.handleCookies) }
        if contains(.allowInvalidSSLCertificates) { options.insert(.allowInvalidSSLCertificates) }
        if contains(.scaleDownLargeImages) { options.insert(.scaleDownLargeImages) }
        if contains(.decodeFirstFrameOnly) { options.insert(.decodeFirstFrameOnly) }
        return options
    }

    /// The cache's share of these options.
    var cacheQueryOptions: ImageCacheQueryOptions {
        var options: ImageCacheQueryOptions = []
        if contains(.queryMemoryData) { options.insert(.queryMemoryData) }
        if contains(.queryDiskDataSync) { options.insert(.queryDiskDataSync) }
        return options
    }
}
