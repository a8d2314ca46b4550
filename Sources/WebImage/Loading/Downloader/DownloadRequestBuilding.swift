import Foundation
import HTTPTypes

extension ImageDownloader {
    /// The request for `url` as SD builds it: the downloader's headers, basic-auth credentials (where they apply),
    /// cookies, the cached copy's validators, then the headers filter, then the request modifier
    /// (whose `nil` vetoes the download).
    func makeRequest(for url: URL, options: DownloaderOptions, context: ImageLoaderContext) -> DownloadRequest? {
        var headers = httpHeaders
        if let credential = config.credentials.first(where: { $0.applies(to: url) }) {
            headers[.authorization] = credential.headerValue
        }
        if options.contains(.handleCookies), let cookies = config.cookieJar.cookieHeader(for: url) {
            headers[.cookie] = cookies
        }
        if let validators = context.cachedValidators {
            if let etag = validators.etag { headers[.ifNoneMatch] = etag }
            if let lastModified = validators.lastModified { headers[.ifModifiedSince] = lastModified }
        }
        if let filter = config.headersFilter { headers = filter(url, headers) }
        let request = DownloadRequest(url: url, headerFields: headers, timeout: config.downloadTimeout)
        guard let modifier = context.requestModifier ?? config.requestModifier else { return request }
        return modifier.modifiedRequest(request)
    }
}
