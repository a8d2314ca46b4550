import Foundation

/// Per-load overrides (SDWebImage's `SDWebImageContext`, as a typed value instead of a string-keyed
/// dictionary). Everything left `nil` falls back to the manager's setting or SD's default.
public struct WebImageContext: Sendable {
    /// Maps a URL to its cache key (e.g. dropping a signed query string). `nil` from the filter
    /// means "no caching key": the load skips the cache.
    public var cacheKeyFilter: (@Sendable (URL) -> String?)?
    /// The bytes to store on disk for a loaded image (SD's cache serializer): gets the image, the
    /// bytes it was decoded from (nil for a transformed image) and the URL; `nil` = encode the image.
    public var cacheSerializer: (@Sendable (Image, Data?, URL) -> Data?)?
    /// Applied after decoding; its key joins the cache key (`-<transformerKey>`). `nil` = the
    /// manager's ``ImageManager/Settings/transformer``; ``NoTransformer`` = none at all.
    public var imageTransformer: (any ImageTransformer)?
    /// Decode to fit this size (pixels); joins the cache key as `-Thumbnail({w,h},p)`.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: fit inside, keeping the aspect ratio (SD's default) or stretch.
    public var preserveAspectRatio: Bool
    /// Pixels per point, instead of the key's `@2x`/`@3x`.
    public var imageScaleFactor: Double?
    /// The budget for ``WebImageOptions/scaleDownLargeImages`` (default SD's 60 MB).
    public var imageScaleDownLimitBytes: Int?
    /// Where the final (transformed or thumbnail) image is looked up. Default `.all`.
    public var queryCacheType: ImageCacheType
    /// Where the image is stored. Default `.all`.
    public var storeCacheType: ImageCacheType
    /// On a miss of a transformed/thumbnail key, where to look for the original. Default `.disk`.
    public var originalQueryCacheType: ImageCacheType
    /// Where the original of a transformed/thumbnail image is stored. Default `.disk`.
    public var originalStoreCacheType: ImageCacheType
    /// The cache for this load instead of the manager's.
    public var imageCache: (any ImageCaching)?
    /// Where the original of a transformed or thumbnail image is looked up and stored, instead of
    /// ``imageCache`` (SD's `originalImageCache`): e.g. originals on a large disk cache, derived
    /// images on a small fast one. Loads that derive nothing do not use it.
    public var originalImageCache: (any ImageCaching)?
    /// The loader for this load instead of the manager's.
    public var imageLoader: (any ImageLoader)?
    /// The coder to decode with instead of ``ImageCodersManager/shared``.
    public var imageCoder: (any ImageCoder)?
    /// Changes or vetoes the HTTP request.
    public var requestModifier: (any DownloadRequestModifying)?
    /// Changes or vetoes the HTTP response.
    public var responseModifier: (any DownloadResponseModifying)?
    /// Turns the received bytes into image bytes.
    public var decryptor: (any DownloadDecrypting)?
    /// Pixel limit for decoding (default ``ImageDecodeOptions/defaultMaxPixelCount``).
    public var maxPixelCount: Int?
    /// RGBA bytes an animation's frames may decode to (default
    /// ``ImageDecodeOptions/defaultMaxAnimationBytes``); structure checks that decode keep it too.
    public var maxAnimationBytes: Int?
    /// Binding: which load on a target this is (SD's `setImageOperationKey`); a new load with the
    /// same key cancels the old one. Default: one per target.
    public var setImageOperationKey: String?

    public init(
        cacheKeyFilter: (@Sendable (URL) -> String?)? = nil,
        cacheSerializer: (@Sendable (Image, Data?, URL) -> Data?)? = nil,
        imageTransformer: (any ImageTransformer)? = nil,
        thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true,
        imageScaleFactor: Double? = nil, imageScaleDownLimitBytes: Int? = nil,
        queryCacheType: ImageCacheType = .all, storeCacheType: ImageCacheType = .all,
        originalQueryCacheType: ImageCacheType = .disk, originalStoreCacheType: ImageCacheType = .disk,
        imageCache: (any ImageCaching)? = nil, originalImageCache: (any ImageCaching)? = nil,
        imageLoader: (any ImageLoader)? = nil,
        imageCoder: (any ImageCoder)? = nil,
        requestModifier: (any DownloadRequestModifying)? = nil,
        responseModifier: (any DownloadResponseModifying)? = nil,
        decryptor: (any DownloadDecrypting)? = nil,
        maxPixelCount: Int? = nil, setImageOperationKey: String? = nil
    ) {
        self.cacheKeyFilter = cacheKeyFilter
        self.cacheSerializer = cacheSerializer
        self.imageTransformer = imageTransformer
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.imageScaleFactor = imageScaleFactor
        self.imageScaleDownLimitBytes = imageScaleDownLimitBytes
        self.queryCacheType = queryCacheType
        self.storeCacheType = storeCacheType
        self.originalQueryCacheType = originalQueryCacheType
        self.originalStoreCacheType = originalStoreCacheType
        self.imageCache = imageCache
        self.originalImageCache = originalImageCache
        self.imageLoader = imageLoader
        self.imageCoder = imageCoder
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.decryptor = decryptor
        self.maxPixelCount = maxPixelCount
        self.setImageOperationKey = setImageOperationKey
    }

    /// Whether the image is derived from an original (transformed or a thumbnail), so the original
    /// has a key of its own.
    var derivesFromOriginal: Bool { imageTransformer != nil || thumbnailPixelSize != nil }

    /// Decoding rules for this load (cache hits and downloads alike).
    func decodeOptions(scaleFactor: Double, options: WebImageOptions) -> ImageDecodeOptions {
        var decode = ImageDecodeOptions(
            scaleFactor: scaleFactor, thumbnailPixelSize: thumbnailPixelSize, preserveAspectRatio: preserveAspectRatio,
            decodeFirstFrameOnly: options.contains(.decodeFirstFrameOnly))
        if options.contains(.scaleDownLargeImages) {
            decode.scaleDownLimitBytes = imageScaleDownLimitBytes ?? ImageLoaderContext.defaultScaleDownLimitBytes
        }
        if let maxPixelCount { decode.maxPixelCount = maxPixelCount }
        if let maxAnimationBytes { decode.maxAnimationBytes = maxAnimationBytes }
        return decode
    }
}
