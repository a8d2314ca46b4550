import Foundation

/// The HTTP request a download sends, as a value a ``DownloadRequestModifying`` can change
/// (SD hands its request modifier an `NSURLRequest`).
public struct DownloadRequest: Sendable, Hashable {
    /// Where to send it. A modifier may point it elsewhere (a CDN, a signed URL).
    public var url: URL
    /// `GET` unless a modifier says otherwise.
    public var method: String
    /// Headers as they will be sent (defaults, config, filter, validators, cookies applied).
    public var headers: HTTPHeaderFields
    /// Idle timeout in seconds (SD's `NSURLRequest.timeoutInterval`): the download fails with
    /// ``TransportError/timedOut(_:)`` when nothing arrives for this long — while connecting,
    /// waiting for the response head, or between body parts. Starts as
    /// ``DownloaderConfig/downloadTimeout``; a request modifier may raise or lower it for one
    /// request (connecting alone stays bounded by `downloadTimeout` too). `.infinity` = no idle limit.
    public var timeout: TimeInterval

    public init(url: URL, method: String = "GET", headers: HTTPHeaderFields = [:], timeout: TimeInterval = 15) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout
    }
}

/// The final HTTP response head of a download, after redirects (SD's `NSURLResponse`), as a
/// value a ``DownloadResponseModifying`` can change.
public struct DownloadResponse: Sendable, Hashable {
    /// The URL that answered (the last one after redirects).
    public var url: URL
    public var statusCode: Int
    public var headers: HTTPHeaderFields

    public init(url: URL, statusCode: Int, headers: HTTPHeaderFields = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }

    /// `Content-Length`, or -1 when absent or unreadable.
    public var expectedContentLength: Int64 {
        headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// The media type of `Content-Type` without parameters, lower-cased (`image/jpeg`).
    public var mimeType: String? {
        guard let type = headers["Content-Type"] else { return nil }
        let bare = type.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        return bare.isEmpty ? nil : bare
    }

    /// `ETag`, `Last-Modified` and the expiry from `Cache-Control: max-age` (or `Expires`),
    /// as the disk cache keeps them; `nil` when the response has none of them.
    public var validators: HTTPValidators? {
        HTTPValidators(headers: headers, now: Date())
    }
}

extension HTTPValidators {
    /// Reads validators from response headers; `nil` when there are none. `no-store` and
    /// `no-cache` give an expiry of `now` (revalidate every time).
    init?(headers: HTTPHeaderFields, now: Date) {
        let etag = headers["ETag"]
        let lastModified = headers["Last-Modified"]
        var expiry: Date?
        if let control = headers["Cache-Control"]?.lowercased() {
            let directives = control.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if directives.contains("no-store") || directives.contains("no-cache") {
                expiry = now
            } else if let maxAge = directives.first(where: { $0.hasPrefix("max-age=") }),
                      let seconds = TimeInterval(maxAge.dropFirst("max-age=".count)) {
                expiry = now.addingTimeInterval(seconds)
            }
        }
        if expiry == nil, let expires = headers["Expires"] {
            // An unparsable Expires (often "0") means already expired (RFC 9111 §5.3).
            expiry = HTTPDate.parse(expires) ?? now
        }
        guard etag != nil || lastModified != nil || expiry != nil else { return nil }
        self.init(etag: etag, lastModified: lastModified, expirationDate: expiry)
    }
}
