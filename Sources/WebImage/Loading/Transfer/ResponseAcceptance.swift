import Foundation
import HTTPTypes

/// The checks a final response head passes before its body is wanted — the response modifier,
/// then status, content type and declared size — as ``DownloadTransfer`` runs them on every carrier.
enum ResponseAcceptance {
    /// What the head came to.
    enum Verdict {
        /// The body is wanted (for a 304: there is none, and the completion handles it).
        case accepted(DownloadResponse)
        /// The body is not wanted, for `error`; `response` is what callers see of the head (nil
        /// when the modifier refused it).
        case refused(WebImageError, response: DownloadResponse?)
    }

    /// The verdict on a head with `status` and `fields`.
    static func verdict(
        status: Int, fields: HTTPFields, url: URL, config: DownloaderConfig, modifier: (any DownloadResponseModifying)?
    ) -> Verdict {
        var response = DownloadResponse(url: url, status: HTTPResponse.Status(code: status), headerFields: fields)
        if let modifier {
            guard let modified = modifier.modifiedResponse(response) else {
                return .refused(.invalidDownloadResponse(reason: "the response modifier returned nil"), response: nil)
            }
            response = modified
        }
        // A 304's body is empty whatever its headers say; the completion handles it.
        guard response.statusCode != 304 else { return .accepted(response) }
        guard config.acceptableStatusCodes.contains(response.statusCode) else {
            return .refused(.invalidDownloadStatusCode(response.statusCode), response: response)
        }
        guard config.accepts(contentType: response.mimeType) else {
            return .refused(.invalidDownloadContentType(response.headerFields[.contentType]), response: response)
        }
        if response.expectedContentLength > config.maximumResponseSize {
            return .refused(.transport(.responseTooLarge(limit: config.maximumResponseSize)), response: response)
        }
        return .accepted(response)
    }
}
