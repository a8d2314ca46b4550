import Foundation

/// What a successful load gives: the decoded image, the bytes it came from, and for HTTP what the
/// server said about them.
public struct ImageLoaderResult: Sendable {
    /// The decoded image (scale from the key, options applied).
    public var image: Image
    /// The image bytes as received (after the decryptor), for the disk cache.
    public var data: Data
    /// The final HTTP response (after redirects and the response modifier); `nil` for
    /// `file:` and `data:` loads.
    public var response: DownloadResponse?
    /// Timings and sizes of the download; `nil` for local loads.
    public var metrics: DownloadMetrics?
    /// The server answered `304 Not Modified` and ``data`` is ``ImageLoaderContext/cachedData``.
    public var isNotModified: Bool

    public init(image: Image, data: Data, response: DownloadResponse? = nil,
                metrics: DownloadMetrics? = nil, isNotModified: Bool = false) {
        self.image = image
        self.data = data
        self.response = response
        self.metrics = metrics
        self.isNotModified = isNotModified
    }

    /// The response's validators (`ETag`, `Last-Modified`, expiry), for the disk cache.
    public var validators: HTTPValidators? { response?.validators }
}

/// How far a load has got (SD's progress block arguments), and for progressive loads the
/// newest partial image.
public struct ImageLoaderProgress: Sendable {
    /// Bytes received so far.
    public var receivedSize: Int64
    /// Bytes expected in all, or -1 when the size is unknown (SD's `NSURLResponseUnknownLength`).
    public var expectedSize: Int64
    /// The URL being loaded.
    public var url: URL
    /// A partial image decoded from the bytes so far (``DownloaderOptions/progressiveLoad``).
    public var partialImage: Image?

    public init(receivedSize: Int64, expectedSize: Int64, url: URL, partialImage: Image? = nil) {
        self.receivedSize = receivedSize
        self.expectedSize = expectedSize
        self.url = url
        self.partialImage = partialImage
    }
}

/// Progress callbacks: zero or more, in order, never after the completion.
public typealias ImageLoaderProgressHandler = @Sendable (ImageLoaderProgress) -> Void
/// The completion: called exactly once per request, never after a cancel was delivered.
public typealias ImageLoaderCompletion = @Sendable (Result<ImageLoaderResult, WebImageError>) -> Void
