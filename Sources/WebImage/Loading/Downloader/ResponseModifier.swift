import HTTPTypes

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

    /// Replaces status and header fields (SD's `initWithStatusCode:version:headers:`); `nil`
    /// leaves that part alone.
    public init(status: HTTPResponse.Status? = nil, headerFields: HTTPFields? = nil) {
        self.init { response in
            var response = response
            if let status { response.status = status }
            if let headerFields { response.headerFields = headerFields }
            return response
        }
    }

    public func modifiedResponse(_ response: DownloadResponse) -> DownloadResponse? { body(response) }
}
