/// Changes the request before it is sent, or vetoes it (SDWebImage's
/// `SDWebImageDownloaderRequestModifier` protocol). Returning `nil` fails the download with
/// ``WebImageError/invalidDownloadOperation(reason:)`` (2000).
public protocol DownloadRequestModifying: Sendable {
    func modifiedRequest(_ request: DownloadRequest) -> DownloadRequest?
}

/// A request modifier from a closure (SD's block-based `SDWebImageDownloaderRequestModifier`).
public struct RequestModifier: DownloadRequestModifying {
    private let body: @Sendable (DownloadRequest) -> DownloadRequest?

    public init(_ body: @escaping @Sendable (DownloadRequest) -> DownloadRequest?) { self.body = body }

    /// Sets headers and keeps everything else (SD's `initWithHeaders:`).
    public init(headers: HTTPHeaderFields) {
        self.init { request in
            var request = request
            for field in headers { request.headers[field.name] = field.value }
            return request
        }
    }

    public func modifiedRequest(_ request: DownloadRequest) -> DownloadRequest? { body(request) }
}
