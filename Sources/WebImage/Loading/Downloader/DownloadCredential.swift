import Foundation

/// HTTP basic-authentication credentials and the hosts they belong to (SDWebImage's downloader
/// `username`/`password`, scoped). SD answers a 401 challenge from any host with them; WebImage
/// sends them up front, so it sends them only where they were meant to go: to ``hosts``, over
/// https unless ``allowsPlainHTTP``. A redirect to another origin drops them (AsyncHTTPClient).
public struct DownloadCredential: Sendable, Hashable, CustomStringConvertible {
    public var username: String
    public var password: String
    /// Host names the credentials go to: exact (`img.example.com`) or `*.example.com` for any
    /// subdomain (not `example.com` itself, nor any IP address). Compared case-insensitively,
    /// without a trailing dot.
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
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || (scheme == "http" && allowsPlainHTTP),
              let host = url.host.map(Self.normalized), !host.isEmpty
        else { return false }
        // An address has no subdomains: `*.0.0.1` must not match 127.0.0.1.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        return hosts.map(Self.normalized).contains { pattern in
            if pattern.hasPrefix("*.") { return !isAddress && host.hasSuffix(pattern.dropFirst()) }
            return host == pattern
        }
    }

    /// The `Authorization` header value.
    var headerValue: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    /// The password never appears in logs or error messages.
    public var description: String { "DownloadCredential(\(username):***, hosts: \(hosts), allowsPlainHTTP: \(allowsPlainHTTP))" }

    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
