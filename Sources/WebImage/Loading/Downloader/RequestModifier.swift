import HTTPTypes

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

    /// Sets header fields (replacing any of the same name) and keeps everything else (SD's `initWithHeaders:`).
    public init(headerFields: HTTPFields) {
        self.init { request in
            var request = request
            request.headerFields.overlay(headerFields)
            return request
        }
    }

    public func modifiedRequest(_ request: DownloadRequest) -> DownloadRequest? { body(request) }
}
