import Foundation

/// HTTP basic-authentication credentials and the hosts they belong to (SDWebImage's downloader
/// `username`/`password`, scoped). SD answers a 401 challenge from any host with them; WebImage
/// sends them up front, so it sends them only where they were meant to go: to ``hosts``, over
/// https unless ``allowsPlainHTTP``. A redirect to another origin drops them (AsyncHTTPClient).
public struct DownloadCredential: Sendable, Hashable, CustomStringConvertible {
    public var username: String
    public var password: String
    /// Host names the credentials go to: exact (`img.example.com`) or `*.example.com` for any
    /// subdomain (not `example.com` itself, nor any IP address). Compared in any case, without
    /// trailing dots or an IPv6 literal's brackets.
    public var hosts: [String]
    /// Whether plain `http` may carry them, readable by anyone on the path. Default `false`.
    public var allowsPlainHTTP: Bool

    public init(username: String, password: String, hosts: [String], allowsPlainHTTP: Bool = false) {
        self.username = username
        self.password = password
        self.hosts = hosts
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    /// Whether a request to `url` carries these credentials.
    public func applies(to url: URL) -> Bool {
        guard let origin = Origin(url), origin.isSecure || allowsPlainHTTP else { return false }
        return hosts.contains { HostPattern($0).matches(origin) }
    }

    /// The `Authorization` header value.
    var headerValue: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    /// The password never appears in logs or error messages.
    public var description: String { "DownloadCredential(\(username):***, hosts: \(hosts), allowsPlainHTTP: \(allowsPlainHTTP))" }
}
