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
    /// The downloader's config, read where it is kept (not copied per download).
    private let environment: DownloadEnvironment
    private let handlesCookies: Bool
    private let validators: HTTPValidators?
    /// The context's, which win over the downloader's.
    private let modifier: (any DownloadRequestModifying)?
    private let redirectHandler: (any DownloadRedirectHandling)?

    /// The builder for a download with `options` and `context` on a downloader whose headers are
    /// `headers` now.
    init(headers: HTTPFields, environment: DownloadEnvironment, options: DownloaderOptions, context: ImageLoaderContext) {
        self.headers = headers
        self.environment = environment
        handlesCookies = options.contains(.handleCookies)
        validators = context.cachedValidators
        modifier = context.requestModifier
        redirectHandler = context.redirectHandler
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
        guard let redirectHandler = redirectHandler ?? environment.config.redirectHandler else { return .follow(next) }
        return redirectHandler.redirect(response, next: next).map { .follow($0) } ?? .stop
    }

    private func build(_ url: URL, method: HTTPRequest.Method, keepsOwnCredentials: Bool) -> DownloadRequest? {
        var fields = headers
        if !keepsOwnCredentials {
            for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] { fields[name] = nil }
        }
        if !environment.config.credentials.isEmpty, let credential = environment.config.credentials.first(where: { $0.applies(to: url) }) {
            fields[.authorization] = credential.headerValue
        }
        if handlesCookies, let header = environment.config.cookieJar.cookieHeader(for: url) {
            fields[.cookie] = header
        }
        if let validators {
            if let etag = validators.etag { fields[.ifNoneMatch] = etag }
            if let lastModified = validators.lastModified { fields[.ifModifiedSince] = lastModified }
        }
        if let headersFilter = environment.config.headersFilter { fields = headersFilter(url, fields) }
        let request = DownloadRequest(url: url, method: method, headerFields: fields, timeout: environment.config.downloadTimeout)
        guard let modifier = modifier ?? environment.config.requestModifier else { return request }
        return modifier.modifiedRequest(request)
    }
}
