import Foundation

/// The manager's cache as the app sees it: keys, what is cached, and storing an image by URL.
extension ImageManager {
    /// The key of `url`'s original image (SD's `cacheKeyForURL:`): the manager's key filter's
    /// output, else the absolute string — no options processor, transformer or thumbnail suffix,
    /// so it names the downloaded bytes whatever the manager derives from them. `nil` when the
    /// filter says the URL has no key. ``cacheKey(for:options:context:)`` gives a load's full key.
    public func cacheKey(for url: URL) -> String? {
        let filter = settings.cacheKeyFilter
        return filter.map { $0(url) } ?? url.absoluteString
    }

    /// The cache key a load of `url` with these options and context stores its image under (SD's
    /// `cacheKeyForURL:context:`), built by the same steps as the load: the options processor,
    /// the manager's transformer unless the context has one (or ``NoTransformer``), then the key
    /// filter's output or the absolute string with `-Thumbnail(…)` and `-<transformerKey>` before
    /// the path extension. `nil` when the filter says the URL has no key.
    public func cacheKey(for url: URL, options: WebImageOptions = [], context: WebImageContext) -> String? {
        prepare(url: url, options: options, context: context).key
    }

    /// Stores an image the app already has under `url`'s original key (``cacheKey(for:)``), in
    /// memory and on disk (SD's `saveImageToCache:forURL:`), so later loads of `url` find it
    /// instead of downloading. The disk gets the image's ``Image/originalData`` when it has
    /// some, else the cache encodes it. Throws when the disk write fails; a URL the key filter
    /// gives no key stores nothing.
    public func saveImageToCache(_ image: Image, for url: URL) async throws {
        guard let key = cacheKey(for: url) else { return }
        try await imageCache.store(image, data: image.originalData, forKey: key, cacheType: .all)
    }

    /// Whether the cache a load of `url` would use holds its image (under ``cacheKey(for:options:context:)``)
    /// in memory or on disk.
    public func cachedImageExists(
        for url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async -> Bool {
        let request = prepare(url: url, options: options, context: context)
        guard let key = request.key else { return false }
        return await request.cache.containsImage(forKey: key, cacheType: .all) != .none
    }

    /// The image a load of `url` would find in its ``ImageCache`` now: memory, else the disk read
    /// and decoded on this thread (SD's `imageFromCacheForKey:`); nil for any other cache.
    func cachedImageNow(for url: URL, options: WebImageOptions, context: WebImageContext) -> Image? {
        let request = prepare(url: url, options: options, context: context)
        guard let key = request.key, let cache = request.cache as? ImageCache else { return nil }
        return queryImageSynchronously(
            in: cache, forKey: key, options: request.cacheQueryOptions.union(.queryDiskDataSync),
            decodeOptions: request.fullKeyDecodeOptions, cacheType: request.context.queryCacheType, request: request)?.image
    }

    /// Whether the cache a load of `url` would use holds its image on disk.
    public func diskImageExists(
        for url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
    ) async -> Bool {
        let request = prepare(url: url, options: options, context: context)
        guard let key = request.key else { return false }
        return await request.cache.containsImage(forKey: key, cacheType: .disk) == .disk
    }
}
