/// Changes the response head before it is validated, or vetoes it (SDWebImage's
/// `SDWebImageDownloaderResponseModifier`). Returning `nil` fails the download with
/// ``WebImageError/invalidDownloadResponse(reason:)`` (2003) and stops the transfer.
public protocol DownloadResponseModifying: Sendable {
    func modifiedResponse(_ response: DownloadResponse) -> DownloadResponse?
}

/// A response modifier from a closure.
public struct ResponseModifier: DownloadResponseModifying {
    private let body: @Sendable (DownloadResponse) -> DownloadResponse?

    public init(_ body: @escaping @Sendable (DownloadResponse) -> DownloadResponse?) { self.body = body }

    /// Replaces status code and headers (SD's `initWithStatusCode:version:headers:`); `nil`
    /// leaves that part alone.
    public init(statusCode: Int? = nil, headers: HTTPHeaderFields? = nil) {
        self.init { response in
            var response = response
            if let statusCode { response.statusCode = statusCode }
            if let headers { response.headers = headers }
            return response
        }
    }

    public func modifiedResponse(_ response: DownloadResponse) -> DownloadResponse? { body(response) }
}
