import Foundation
import HTTPTypes

/// Builds the request of every hop of a download — the first and each redirect — by one rule
/// (SD builds only the first): the downloader's headers, without credentials or cookies once a
/// hop leaves the first request's origin (so never from https down to http); the credentials for
/// the hop's own host; the jar's cookies for its URL (``DownloaderOptions/handleCookies``); the
/// cached copy's validators; the headers filter; then the request modifier, whose `nil` stops the
/// download. A redirect's request then goes to the redirect handler, which may change it or stop.
struct DownloadRequestBuilder: Sendable {
    /// What a redirect comes to.
    enum Redirect {
        case follow(DownloadRequest)
        /// The redirect handler stopped the chain: the redirect's response is the answer.
        case stop
        /// The request modifier refused the next hop.
        case refused
    }

    private let headers: HTTPFields
    private let credentials: [DownloadCredential]
    private let cookies: CookieJar?
    private let validators: HTTPValidators?
    private let headersFilter: (@Sendable (URL, HTTPFields) -> HTTPFields)?
    private let modifier: (any DownloadRequestModifying)?
    private let redirectHandler: (any DownloadRedirectHandling)?
    private let timeout: TimeInterval

    /// The builder for a download with `options` and `context` on a downloader whose headers are
    /// `headers` now.
    init(headers: HTTPFields, config: DownloaderConfig, options: DownloaderOptions, context: ImageLoaderContext) {
        self.headers = headers
        credentials = config.credentials
        cookies = options.contains(.handleCookies) ? config.cookieJar : nil
        validators = context.cachedValidators
        headersFilter = config.headersFilter
        modifier = context.requestModifier ?? config.requestModifier
        redirectHandler = context.redirectHandler ?? config.redirectHandler
        timeout = config.downloadTimeout
    }

    /// The first hop's request; `nil` when the modifier refused it.
    func request(for url: URL) -> DownloadRequest? {
        build(url, method: .get, keepsOwnCredentials: true)
    }

    /// The hop after `response`, a redirect to `target` from `previous` (the chain's `method`),
    /// for a download that began with a request for `first`.
    func redirect(
        _ response: DownloadResponse, from previous: DownloadRequest, to target: URL, method: HTTPRequest.Method, first: URL
    ) -> Redirect {
        guard let next = build(target, method: method, keepsOwnCredentials: Origin.same(first, target)) else { return .refused }
        guard let redirectHandler else { return .follow(next) }
        return redirectHandler.redirect(response, next: next).map { .follow($0) } ?? .stop
    }

    private func build(_ url: URL, method: HTTPRequest.Method, keepsOwnCredentials: Bool) -> DownloadRequest? {
        var fields = headers
        if !keepsOwnCredentials {
            for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] { fields[name] = nil }
        }
        if let credential = credentials.first(where: { $0.applies(to: url) }) {
            fields[.authorization] = credential.headerValue
        }
        if let cookies, let header = cookies.cookieHeader(for: url) {
            fields[.cookie] = header
        }
        if let validators {
            if let etag = validators.etag { fields[.ifNoneMatch] = etag }
            if let lastModified = validators.lastModified { fields[.ifModifiedSince] = lastModified }
        }
        if let headersFilter { fields = headersFilter(url, fields) }
        let request = DownloadRequest(url: url, method: method, headerFields: fields, timeout: timeout)
        guard let modifier else { return request }
        return modifier.modifiedRequest(request)
    }
}
