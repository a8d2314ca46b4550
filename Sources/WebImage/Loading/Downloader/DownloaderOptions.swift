/// Per-request switches for loaders (SDWebImage's `SDWebImageDownloaderOptions`; the raw values
/// are SD's bits). Options SD has that mean nothing here — `useNSURLCache`,
/// `continueInBackground`, `avoidDecodeImage`, `preloadAllFrames`, `matchAnimatedImageClass` —
/// are left out rather than accepted and ignored.
public struct DownloaderOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Queue behind everything of normal priority.
    public static let lowPriority = DownloaderOptions(rawValue: 1 << 0)
    /// Decode partial images while bytes arrive and report them through progress.
    public static let progressiveLoad = DownloaderOptions(rawValue: 1 << 1)
    /// Send cookies stored for the URL and store the ones the response sets
    /// (``DownloaderConfig/cookieJar``).
    public static let handleCookies = DownloaderOptions(rawValue: 1 << 5)
    /// Skip TLS certificate verification for this request (self-signed test servers).
    public static let allowInvalidSSLCertificates = DownloaderOptions(rawValue: 1 << 6)
    /// Queue ahead of everything of normal priority.
    public static let highPriority = DownloaderOptions(rawValue: 1 << 7)
    /// Decode large images scaled down to ``ImageLoaderContext/scaleDownLimitBytes``.
    public static let scaleDownLargeImages = DownloaderOptions(rawValue: 1 << 8)
    /// Decode only the first frame of an animated image.
    public static let decodeFirstFrameOnly = DownloaderOptions(rawValue: 1 << 10)
}
