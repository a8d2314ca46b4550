import Foundation

/// Per-request overrides a loader reads (the loader's share of SDWebImage's `SDWebImageContext`).
/// The manager fills it from its own context; the defaults give a plain load.
public struct ImageLoaderContext: Sendable {
    /// The cache key the image will be stored under; its `@2x`/`@3x` gives the scale
    /// (SD's `SDImageScaleFactorForKey`). `nil` = the URL's absolute string.
    public var cacheKey: String?
    /// Pixels per point, overriding the key's (SD's `.imageScaleFactor`).
    public var scaleFactor: Double?
    /// Decode options (thumbnail size, limits). ``scaleFactor``, the key's scale and the
    /// decode-related ``DownloaderOptions`` are applied on top.
    public var decodeOptions: ImageDecodeOptions
    /// The byte budget for ``DownloaderOptions/scaleDownLargeImages`` (SD's 60 MB default).
    public var scaleDownLimitBytes: Int
    /// The coder to decode with (SD's `.imageCoder`); `nil` = ``ImageCodersManager/shared``.
    public var coder: (any ImageCoder)?
    /// Changes or vetoes each hop's request (overrides the downloader's).
    public var requestModifier: (any DownloadRequestModifying)?
    /// Sees, changes or stops each redirect (overrides the downloader's).
    public var redirectHandler: (any DownloadRedirectHandling)?
    /// Changes or vetoes the response (overrides the downloader's).
    public var responseModifier: (any DownloadResponseModifying)?
    /// Turns the received bytes into image bytes (overrides the downloader's).
    public var decryptor: (any DownloadDecrypting)?
    /// Validators of the copy already cached: sent as `If-None-Match` / `If-Modified-Since`.
    public var cachedValidators: HTTPValidators?
    /// The bytes already cached, decoded instead when the server answers `304 Not Modified`.
    /// Without them (or ``cachedImage``) a 304 fails with ``WebImageError/cacheNotModified``.
    public var cachedData: Data?
    /// The image already cached: a `304 Not Modified` answers with it, undecoded, and with the
    /// 304's headers (whose validators the manager folds into the cache). Wins over ``cachedData``.
    public var cachedImage: Image?

    public init(
        cacheKey: String? = nil, scaleFactor: Double? = nil, decodeOptions: ImageDecodeOptions = .default,
        scaleDownLimitBytes: Int = ImageLoaderContext.defaultScaleDownLimitBytes, coder: (any ImageCoder)? = nil,
        requestModifier: (any DownloadRequestModifying)? = nil,
        responseModifier: (any DownloadResponseModifying)? = nil,
        decryptor: (any DownloadDecrypting)? = nil,
        cachedValidators: HTTPValidators? = nil, cachedData: Data? = nil, cachedImage: Image? = nil,
        redirectHandler: (any DownloadRedirectHandling)? = nil
    ) {
        self.cacheKey = cacheKey
        self.scaleFactor = scaleFactor
        self.decodeOptions = decodeOptions
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.coder = coder
        self.requestModifier = requestModifier
        self.redirectHandler = redirectHandler
        self.responseModifier = responseModifier
        self.decryptor = decryptor
        self.cachedValidators = cachedValidators
        self.cachedData = cachedData
        self.cachedImage = cachedImage
    }

    /// 60 MB of decoded pixels, SDWebImage's `defaultScaleDownLimitBytes`.
    public static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

    public static let `default` = ImageLoaderContext()
}
