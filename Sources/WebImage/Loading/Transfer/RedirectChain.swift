import AsyncHTTPClient
import Foundation
import HTTPTypes

/// The redirects of one download on the lean client, followed as AsyncHTTPClient follows them: at
/// most `limit` hops, no URL twice, only to `http` or `https`, a 303 — or a 301/302 of a non-GET
/// — becomes a GET (a 307/308 keeps the method), and credentials and cookies are dropped when the
/// origin (scheme, host and port) changes — so never sent from https down to http.
struct RedirectChain: Sendable {
    private let first: URL
    /// URLs requested so far; made at the first redirect (most downloads have none).
    private var visited: Set<String> = []
    let limit: Int

    init(from url: URL, limit: Int) {
        first = url
        self.limit = limit
    }

    /// Where a `status` response with `location` (the response to a request for `url`)
    /// redirects, when it is a redirect to follow; a redirect elsewhere is the answer, and its
    /// status fails the download.
    func target(status: Int, location: String?, from url: URL) -> URL? {
        guard limit > 0, [301, 302, 303, 307, 308].contains(status), let location,
              let target = URL(string: location, relativeTo: url)?.absoluteURL,
              target.hasHTTPScheme
        else { return nil }
        return target
    }

    /// The request for the hop from `request` to `target` (a `status` redirect), or the error that ends the chain.
    mutating func follow(_ request: DownloadRequest, to target: URL, status: UInt) -> Result<DownloadRequest, HTTPClientError> {
        if visited.isEmpty { visited.insert(first.absoluteString) }
        guard visited.count <= limit else { return .failure(.redirectLimitReached) }
        guard visited.insert(target.absoluteString).inserted else { return .failure(.redirectCycleDetected) }
        var next = request
        if !Self.isSameOrigin(request.url, target) {
            for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] { next.headerFields[name] = nil }
        }
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && next.method != .get && next.method != .head) {
            next.method = .get
        }
        return .success(next)
    }

    /// Scheme, host and port alike (the port a scheme implies counts as written).
    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return (scheme, host.hasSuffix(".") ? String(host.dropLast()) : host, port)
        }
        guard let left = origin(a), let right = origin(b) else { return false }
        return left == right
    }
}
