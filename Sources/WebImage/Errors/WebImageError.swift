/// Why an image could not be loaded: SDWebImage's `SDWebImageError` codes as a typed enum, plus
/// the transport failures SD passed through from `NSURLErrorDomain`.
///
/// ``code`` matches SDWebImage's numbers (1000–2004); transport errors report the
/// `NSURLErrorDomain` code of the same failure (negative). Every description is one line a person
/// can act on.
public enum WebImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1000: the URL is missing, malformed or of a scheme no loader handles.
    case invalidURL(String)
    /// 1001: the data is empty, could not be decrypted, or could not be decoded as an image.
    case badImageData(reason: String)
    /// 1001 as well: the image is over a limit the decode was given — its pixels
    /// (``ImageCoderError/tooLarge(width:height:limit:)``), its progressive scans or its decode
    /// budget — so it was refused before its pixels were made. Typed, so a caller can tell "too
    /// big for me" from "not an image" without reading the sentence.
    case overDecodeLimit(ImageCoderError)
    /// 1002: the server answered `304 Not Modified` but there is no cached data to fall back on.
    case cacheNotModified
    /// 1003: the URL failed before in a way that will not fix itself; see `retryFailed`.
    case blackListed
    /// 1004 (WebImage's own; SD answers such loads with no image and no error): the image is not
    /// cached and may not be downloaded — ``WebImageOptions/fromCacheOnly`` or the manager's
    /// `shouldDownload` said no.
    case notInCache
    /// 2000: no download could be made: the request modifier returned nil, or the request
    /// could not be built.
    case invalidDownloadOperation(reason: String)
    /// 2000 as well: the loader's hop policy (``DownloadHopPolicy``) refused this URL or a
    /// redirect's — an address or host the application does not fetch from; `reason` says which.
    case refusedByHopPolicy(reason: String)
    /// 2001: the status code is not in ``DownloaderConfig/acceptableStatusCodes``.
    case invalidDownloadStatusCode(Int)
    /// 2002: cancelled before it finished.
    case cancelled
    /// 2003: the response modifier returned nil.
    case invalidDownloadResponse(reason: String)
    /// 2004: the `Content-Type` is not in ``DownloaderConfig/acceptableContentTypes``
    /// (`nil` when the response had none).
    case invalidDownloadContentType(String?)
    /// The network failed; see ``TransportError/isTransient``.
    case transport(TransportError)

    /// SDWebImage's `SDWebImageError` code, or for ``transport(_:)`` the `NSURLErrorDomain` code.
    public var code: Int {
        switch self {
        case .invalidURL: 1000
        case .badImageData, .overDecodeLimit: 1001
        case .cacheNotModified: 1002
        case .blackListed: 1003
        case .notInCache: 1004
        case .invalidDownloadOperation, .refusedByHopPolicy: 2000
        case .invalidDownloadStatusCode: 2001
        case .cancelled: 2002
        case .invalidDownloadResponse: 2003
        case .invalidDownloadContentType: 2004
        case .transport(let error): error.urlErrorCode
        }
    }

    /// The HTTP status code carried by ``invalidDownloadStatusCode(_:)`` (SD's
    /// `SDWebImageErrorDownloadStatusCodeKey`).
    public var statusCode: Int? {
        if case .invalidDownloadStatusCode(let status) = self { return status }
        return nil
    }

    /// Whether trying again later may well succeed: cancellation and transient transport errors.
    public var isTransient: Bool {
        switch self {
        case .cancelled: true
        case .transport(let error): error.isTransient
        default: false
        }
    }

    /// SDWebImage's default blocklist rule (`shouldBlockFailedURLWithURL:error:`): block a bad URL,
    /// undecodable data and non-transient transport failures; never a cancellation, a timeout, a
    /// DNS or connect failure or a lost connection. Status and content-type rejections are not
    /// blocked either, as in SD 5: a 404 or 503 may be fixed on the server.
    public var shouldBlockFailedURL: Bool {
        switch self {
        case .invalidURL, .badImageData, .overDecodeLimit: true
        case .transport(let error): !error.isTransient
        case .cacheNotModified, .blackListed, .notInCache, .invalidDownloadOperation, .refusedByHopPolicy, .invalidDownloadStatusCode,
             .cancelled, .invalidDownloadResponse, .invalidDownloadContentType: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid image URL \(url.isEmpty ? "(empty)" : "'\(url)'")"
        case .badImageData(let reason): "bad image data: \(reason)"
        case .overDecodeLimit(let error): "bad image data: \(error)"
        case .cacheNotModified: "the server answered 304 Not Modified but no cached copy was given"
        case .blackListed: "the URL failed before and is blocked; use the retryFailed option to try again"
        case .notInCache: "the image is not in the cache and downloading it was not allowed"
        case .invalidDownloadOperation(let reason): "cannot start the download: \(reason)"
        case .refusedByHopPolicy(let reason): "cannot start the download: \(reason)"
        case .invalidDownloadStatusCode(let status): "the server answered HTTP \(status)"
        case .cancelled: "the image load was cancelled"
        case .invalidDownloadResponse(let reason): "invalid download response: \(reason)"
        case .invalidDownloadContentType(let type):
            type.map { "the server sent Content-Type '\($0)', which is not an accepted image type" }
                ?? "the server sent no Content-Type and one is required"
        case .transport(let error): error.description
        }
    }
}
