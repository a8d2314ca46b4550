import Foundation
import HTTPTypes

/// The checks a final response head passes before its body is wanted — the response modifier,
/// then status, content type and declared size — as ``DownloadTransfer`` runs them on every carrier.
struct ResponseAcceptance: Sendable {
    /// What the head came to.
    enum Verdict {
        /// The body is wanted (for a 304: there is none, and the completion handles it).
        case accepted(DownloadResponse)
        /// The body is not wanted, for `error`; `response` is what callers see of the head (nil
        /// when the modifier refused it).
        case refused(WebImageError, response: DownloadResponse?)
    }

    let acceptableStatusCodes: IndexSet
    let acceptableContentTypes: Set<String>?
    let maximumResponseSize: Int64

    /// The config's checks, taken once per downloader (not a copy of the whole config per head).
    init(_ config: DownloaderConfig) {
        acceptableStatusCodes = config.acceptableStatusCodes
        acceptableContentTypes = config.acceptableContentTypes
        maximumResponseSize = config.maximumResponseSize
    }

    /// The verdict on a head with `status` and `fields`.
    func verdict(status: Int, fields: HTTPFields, url: URL, modifier: (any DownloadResponseModifying)?) -> Verdict {
        var response = DownloadResponse(url: url, status: HTTPResponse.Status(code: status), headerFields: fields)
        if let modifier {
            guard let modified = modifier.modifiedResponse(response) else {
                return .refused(.invalidDownloadResponse(reason: "the response modifier returned nil"), response: nil)
            }
            response = modified
        }
        // A 304's body is empty whatever its headers say; the completion handles it.
        guard response.statusCode != 304 else { return .accepted(response) }
        guard acceptableStatusCodes.contains(response.statusCode) else {
            return .refused(.invalidDownloadStatusCode(response.statusCode), response: response)
        }
        guard DownloaderConfig.accepts(contentType: response.mimeType, among: acceptableContentTypes) else {
            return .refused(.invalidDownloadContentType(response.headerFields[.contentType]), response: response)
        }
        if response.expectedContentLength > maximumResponseSize {
            return .refused(.transport(.responseTooLarge(limit: maximumResponseSize)), response: response)
        }
        return .accepted(response)
    }
}
