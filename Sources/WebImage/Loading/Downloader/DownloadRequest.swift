import Foundation
import HTTPTypes

/// The HTTP request a download sends, as a value a ``DownloadRequestModifying`` can change
/// (SD hands its request modifier an `NSURLRequest`). Its parts are swift-http-types' — the
/// method and `HTTPFields` an AsyncHTTPClient, Hummingbird or OpenAPI app already holds — and
/// ``httpRequest`` / ``init(_:timeout:)`` convert to and from a whole `HTTPRequest`.
public struct DownloadRequest: Sendable, Hashable {
    /// Where to send it. A modifier may point it elsewhere (a CDN, a signed URL).
    public var url: URL
    /// `GET` unless a modifier says otherwise.
    public var method: HTTPRequest.Method
    /// Header fields as they will be sent (defaults, config, filter, validators, cookies applied).
    /// Names compare case-insensitively; repeated fields keep their order.
    public var headerFields: HTTPFields
    /// Idle timeout in seconds (SD's `NSURLRequest.timeoutInterval`): the download fails with
    /// ``TransportError/timedOut(_:)`` when nothing arrives for this long — while connecting,
    /// waiting for the response head, or between body parts. Starts as
    /// ``DownloaderConfig/downloadTimeout``; a request modifier may raise or lower it for one
    /// request (connecting alone stays bounded by `downloadTimeout` too). `.infinity` = no idle limit.
    public var timeout: TimeInterval

    public init(url: URL, method: HTTPRequest.Method = .get, headerFields: HTTPFields = [:], timeout: TimeInterval = 15) {
        self.url = url
        self.method = method
        self.headerFields = headerFields
        self.timeout = timeout
    }

    /// The request an `HTTPRequest` describes; `nil` when it has no absolute URL (no scheme or
    /// authority, as a server-side request head).
    public init?(_ request: HTTPRequest, timeout: TimeInterval = 15) {
        guard let url = request.url else { return nil }
        self.init(url: url, method: request.method, headerFields: request.headerFields, timeout: timeout)
    }

    /// This request as swift-http-types' `HTTPRequest` (its timeout is not part of one).
    public var httpRequest: HTTPRequest {
        HTTPRequest(method: method, url: url, headerFields: headerFields)
    }
}

/// The final HTTP response head of a download, after redirects (SD's `NSURLResponse`), as a
/// value a ``DownloadResponseModifying`` can change.
public struct DownloadResponse: Sendable, Hashable {
    /// The URL that answered (the last one after redirects).
    public var url: URL
    public var status: HTTPResponse.Status
    public var headerFields: HTTPFields

    public init(url: URL, status: HTTPResponse.Status, headerFields: HTTPFields = [:]) {
        self.url = url
        self.status = status
        self.headerFields = headerFields
    }

    /// The response an `HTTPResponse` describes, as answered by `url`.
    public init(_ response: HTTPResponse, url: URL) {
        self.init(url: url, status: response.status, headerFields: response.headerFields)
    }

    /// This response head as swift-http-types' `HTTPResponse`.
    public var httpResponse: HTTPResponse { HTTPResponse(status: status, headerFields: headerFields) }

    /// The status code (SD's `NSHTTPURLResponse.statusCode`).
    public var statusCode: Int { status.code }

    /// `Content-Length`, or -1 when absent or unreadable.
    public var expectedContentLength: Int64 {
        guard let value = headerFields.joinedValue(.contentLength) else { return -1 }
        return Self.trimmed(value) { Int64(String(decoding: $0, as: UTF8.self)) } ?? -1
    }

    /// The media type of `Content-Type` without parameters, lower-cased (`image/jpeg`).
    public var mimeType: String? {
        guard let type = headerFields.joinedValue(.contentType) else { return nil }
        let bare = Self.trimmed(type, upTo: UInt8(ascii: ";")) { String(decoding: $0, as: UTF8.self).lowercased() }
        return bare.isEmpty ? nil : bare
    }

    /// `body` over the bytes of `value` (up to the first `end`, if given) without the spaces and
    /// tabs HTTP allows around them, read in place (not Foundation's trimming: every response pays it).
    private static func trimmed<T>(
        _ value: String, upTo end: UInt8? = nil, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> T
    ) -> T {
        var value = value
        return value.withUTF8 { all in body(ASCII.trimmingSpacesAndTabs(all.prefix { $0 != end })[...]) }
    }

    /// `ETag`, `Last-Modified` and the expiry from `Cache-Control: max-age` (or `Expires`),
    /// as the disk cache keeps them; `nil` when the response has none of them.
    public var validators: HTTPValidators? {
        HTTPValidators(headerFields: headerFields, now: Date())
    }
}

extension HTTPValidators {
    /// Reads validators from response headers; `nil` when there are none. `no-store` and
    /// `no-cache` give an expiry of `now` (revalidate every time).
    init?(headerFields: HTTPFields, now: Date) {
        // One pass, not a subscript per name (each builds a joined String); repeated fields join as the subscript does.
        var etag, lastModified, cacheControl, expires: String?
        for field in headerFields {
            switch field.name {
            case .eTag: HTTPFields.join(field.value, to: &etag)
            case .lastModified: HTTPFields.join(field.value, to: &lastModified)
            case .cacheControl: HTTPFields.join(field.value, to: &cacheControl)
            case .expires: HTTPFields.join(field.value, to: &expires)
            default: continue
            }
        }
        var expiry: Date?
        if let control = cacheControl?.lowercased() {
            let directives = control.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if directives.contains("no-store") || directives.contains("no-cache") {
                expiry = now
            } else if let maxAge = directives.first(where: { $0.hasPrefix("max-age=") }),
                      let seconds = TimeInterval(maxAge.dropFirst("max-age=".count)) {
                expiry = now.addingTimeInterval(seconds)
            }
        }
        if expiry == nil, let expires {
            // An unparsable Expires (often "0") means already expired (RFC 9111 §5.3).
            expiry = HTTPDate.parse(expires) ?? now
        }
        guard etag != nil || lastModified != nil || expiry != nil else { return nil }
        self.init(etag: etag, lastModified: lastModified, expirationDate: expiry)
    }
}
