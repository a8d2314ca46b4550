import AsyncHTTPClient
import Foundation
import Synchronization

/// Cookies for downloads with ``DownloaderOptions/handleCookies`` (SD uses
/// `NSHTTPCookieStorage`): stored from `Set-Cookie`, sent back to matching requests. Domain,
/// path, `Secure` and expiry are honoured; hosts and domains compare in any case and without
/// trailing dots (`a.example.` is `a.example`), and an IP address gets no domain cookies. This is a client for
/// image hosts, not a browser (no public-suffix list, no SameSite).
public final class CookieJar: Sendable {
    /// The jar every downloader uses unless its config names another.
    public static let shared = CookieJar()

    private struct Stored: Sendable {
        var name: String
        var value: String
        /// Its domain and its subdomains, or — without a Domain attribute — only its exact host.
        var hosts: HostPattern
        var path: String
        var secure: Bool
        var expires: Date?
    }

    private let cookies = Mutex<[Stored]>([])

    public init() {}

    /// Stores the cookies a response from `url` sets.
    public func store(setCookieHeaders headers: [String], from url: URL, now: Date = Date()) {
        guard !headers.isEmpty, let host = Origin(url)?.host else { return }
        // An empty default domain marks cookies without a Domain attribute: host-only.
        let parsed = headers.compactMap { HTTPClient.Cookie(header: $0, defaultDomain: "") }
        cookies.withLock { cookies in
            for cookie in parsed {
                let domain = cookie.domain ?? ""
                let hosts = domain.isEmpty ? HostPattern(kind: .exactly, name: host) : HostPattern(kind: .domain, name: domain)
                // A server may only set cookies for itself or a parent domain of itself.
                guard hosts.matches(host) else { continue }
                let expiry = cookie.maxAge.map { now.addingTimeInterval(TimeInterval($0)) } ?? cookie.expires
                cookies.removeAll { $0.name == cookie.name && $0.hosts.name == hosts.name && $0.path == cookie.path }
                if let expiry, expiry <= now { continue }  // an expired Set-Cookie deletes
                cookies.append(Stored(
                    name: cookie.name, value: cookie.value, hosts: hosts, path: cookie.path, secure: cookie.secure, expires: expiry))
            }
        }
    }

    /// The `Cookie` header value for a request to `url`, or `nil` when no cookie matches.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        guard let origin = Origin(url) else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let matching = cookies.withLock { cookies in
            cookies.removeAll { $0.expires.map { $0 <= now } ?? false }
            return cookies.filter { cookie in
                cookie.hosts.matches(origin) && Self.pathMatches(path, cookie.path) && (!cookie.secure || origin.isSecure)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.sorted { $0.path.count > $1.path.count }.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Removes every cookie.
    public func removeAll() { cookies.withLock { $0 = [] } }

    /// RFC 6265 §5.1.4 path matching.
    private static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }
}
