import Foundation
import HTTPTypes

/// The redirects of one download, on every carrier, followed as AsyncHTTPClient follows them: at
/// most `limit` hops, no URL twice, only to `http` or `https`, a 303 — or a 301/302 of a non-GET
/// — becomes a GET (a 307/308 keeps the method). What each hop's request carries is the
/// ``DownloadRequestBuilder``'s to say (credentials and cookies only where they belong).
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

    /// The target a response's head names: its first `Location` field (`HTTPFields`' subscript
    /// would join a repeated one into one URL; AsyncHTTPClient reads the first).
    static func location(in fields: HTTPFields) -> String? {
        fields.first { $0.name == .location }?.value
    }

    /// The method of the hop after a `status` redirect of a `method` request: a 303 — or a
    /// 301/302 of a non-GET — becomes a GET; a 307/308 keeps the method.
    static func method(after status: Int, of method: HTTPRequest.Method) -> HTTPRequest.Method {
        status == 303 || ((status == 301 || status == 302) && method != .get && method != .head) ? .get : method
    }

    /// `next`, the hop after a redirect, or the error that ends the chain (too many, or a URL twice).
    mutating func follow(_ next: DownloadRequest) -> Result<DownloadRequest, WebImageError> {
        if visited.isEmpty { visited.insert(first.absoluteString) }
        guard visited.count <= limit else { return .failure(.transport(.tooManyRedirects(limit: limit))) }
        guard visited.insert(next.url.absoluteString).inserted else { return .failure(.transport(.redirectLoop)) }
        return .success(next)
    }
}
