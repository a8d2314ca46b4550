import Foundation

/// One load with everything resolved up front: options after the processor, the cache and
/// loader to use, the keys, the decode rules. Built once by ``ImageManager`` per call.
struct LoadRequest: Sendable {
    let url: URL
    let options: WebImageOptions
    let context: WebImageContext
    let settings: ImageManager.Settings
    let cache: any ImageCaching
    /// Where the original lives: ``WebImageContext/originalImageCache`` for a derived image, else
    /// ``cache`` (the image is its own original).
    let originalCache: any ImageCaching
    let loader: any ImageLoader
    /// Full key (thumbnail and transformer suffixes); `nil` = do not use the cache.
    let key: String?
    /// The original image's key; equal to ``key`` unless the image is derived.
    let originalKey: String?
    let decodeOptions: ImageDecodeOptions
    let transformer: (any ImageTransformer)?

    /// A memory hit answered on the caller's thread (SD's synchronous memory query), or `nil` when
    /// the load has to go the long way (cache type, options, the blocklist, a refresh).
    func memoryHit() -> ImageResult? {
        guard let key, let cache = cache as? ImageCache, Self.allowsMemoryHit(options: options, context: context),
              let image = cache.imageFromMemoryCache(forKey: key)
        else { return nil }
        return ImageResult(image: image, data: nil, cacheType: .memory, url: url)
    }

    /// This load's identity for `SharedLoads`, or `nil` when it must run on its own: a
    /// refreshCached load answers twice, and per-load caches, loaders, coders without a
    /// ``ImageCoder/coderKey``, modifiers, decryptors, serializers and key filters cannot be compared.
    func shareKey(wantsProgress: Bool) -> LoadShareKey? {
        let context = self.context
        guard !options.contains(.refreshCached), context.imageCache == nil, context.originalImageCache == nil,
              context.imageLoader == nil,
              context.imageCoder == nil || context.imageCoder?.coderKey != nil,
              context.requestModifier == nil, context.responseModifier == nil,
              context.decryptor == nil, context.cacheSerializer == nil, context.cacheKeyFilter == nil
        else { return nil }
        return LoadShareKey(
            url: url.absoluteString, cacheKey: key, options: options, decodeOptions: decodeOptions,
            coder: context.imageCoder?.coderKey,
            queryCacheType: context.queryCacheType, storeCacheType: context.storeCacheType,
            originalQueryCacheType: context.originalQueryCacheType, originalStoreCacheType: context.originalStoreCacheType,
            wantsProgress: wantsProgress)
    }

    /// Whether a memory hit may answer a load with these options on the caller's thread.
    static func allowsMemoryHit(options: WebImageOptions, context: WebImageContext) -> Bool {
        context.queryCacheType.includesMemory && allowsMemoryHit(options: options)
    }

    /// The options' part of ``allowsMemoryHit(options:context:)``.
    static func allowsMemoryHit(options: WebImageOptions) -> Bool {
        options.isDisjoint(with: [.fromLoaderOnly, .refreshCached, .queryMemoryData, .decodeFirstFrameOnly])
    }

    /// Decode rules for the bytes under the full key: a derived image is stored as it is, so it
    /// is read back without the thumbnail box (which would shrink or stretch it again).
    var fullKeyDecodeOptions: ImageDecodeOptions {
        guard context.derivesFromOriginal else { return decodeOptions }
        var options = decodeOptions
        options.thumbnailPixelSize = nil
        return options
    }

    /// Cache query options for this load; a disk hit is copied into memory only when the load
    /// stores to memory at all (SD's rule).
    var cacheQueryOptions: ImageCacheQueryOptions {
        var query = options.cacheQueryOptions
        query.remove(.queryDiskDataSync)  // the long way runs off the caller's thread already
        if !context.storeCacheType.includesMemory { query.insert(.skipMemorySync) }
        return query
    }

    /// The loader's view of this request.
    func loaderContext(cachedValidators: HTTPValidators?, cachedImage: Image?) -> ImageLoaderContext {
        ImageLoaderContext(
            cacheKey: key, scaleFactor: context.imageScaleFactor, decodeOptions: decodeOptions,
            scaleDownLimitBytes: context.imageScaleDownLimitBytes ?? ImageLoaderContext.defaultScaleDownLimitBytes,
            coder: context.imageCoder, requestModifier: context.requestModifier,
            responseModifier: context.responseModifier, decryptor: context.decryptor,
            cachedValidators: cachedValidators, cachedImage: cachedImage)
    }
}

extension ImageManager {
    func prepare(url: URL, options: WebImageOptions, context: WebImageContext) -> LoadRequest {
        let settings = self.settings
        var (options, context) = (options, context)
        if let processor = settings.optionsProcessor { (options, context) = processor(url, options, context) }
        if context.imageTransformer is NoTransformer {
            context.imageTransformer = nil
        } else if context.imageTransformer == nil {
            context.imageTransformer = settings.transformer
        }
        let (key, originalKey) = cacheKeys(for: url, context: context, settings: settings)
        let scale = context.imageScaleFactor ?? ImageScale.scaleFactor(forKey: key ?? url.absoluteString)
        let cache = context.imageCache ?? imageCache
        return LoadRequest(
            url: url, options: options, context: context, settings: settings, cache: cache,
            originalCache: context.derivesFromOriginal ? context.originalImageCache ?? cache : cache,
            loader: context.imageLoader ?? imageLoader,
            key: key, originalKey: originalKey,
            decodeOptions: context.decodeOptions(scaleFactor: scale, options: options),
            transformer: context.imageTransformer)
    }
}
