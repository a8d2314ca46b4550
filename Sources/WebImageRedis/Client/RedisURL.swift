import Foundation

/// Where a Redis is and how to log in: `redis://[user:pass@]host:port/db`, or `rediss://` for TLS
/// (the form `WEBIMAGE_REDIS_URL` takes). The description never shows the password.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The ACL user (Redis 6+); nil logs in as `default` with `AUTH password`.
    public var user: String?
    public var password: String?
    /// The logical database `SELECT`ed on connect (0, Redis's default, sends nothing).
    public var database: Int
    /// `rediss://`: TLS through NIOSSL, verifying the certificate against `host`.
    public var usesTLS: Bool

    public init(host: String = "127.0.0.1", port: Int = 6379, user: String? = nil, password: String? = nil,
                database: Int = 0, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.usesTLS = usesTLS
    }

    /// Parses `text`; throws a ``RedisURLError`` saying what is wrong and what a good one looks like.
    public init(_ text: String) throws(RedisURLError) {
        guard let schemeEnd = text.range(of: "://") else { throw .notARedisURL(Self.redacted(text)) }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" || scheme == "rediss" else { throw .unsupportedScheme(scheme) }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" }
        // The password may hold '@' unescaped; the host never does.
        var hostPort = authority[...]
        var user: String?, password: String?
        if let at = authority.lastIndex(of: "@") {
            let login = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            if let colon = login.firstIndex(of: ":") {
                user = String(login[..<colon]).removingPercentEncoding
                password = String(login[login.index(after: colon)...]).removingPercentEncoding
            } else {
                password = String(login).removingPercentEncoding  // redis-cli's rule: one word before '@' is the password
            }
            if user?.isEmpty == true { user = nil }
        }
        var host = hostPort[...], portText: Substring?
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw .badPort(String(after)) }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .missingHost(Self.redacted(text)) }
        var port = 6379
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { throw .badPort(String(portText)) }
            port = number
        }
        var database = 0
        while path.hasPrefix("/") { path = path.dropFirst() }
        if !path.isEmpty {
            guard let number = Int(path), number >= 0 else { throw .badDatabase(String(path)) }
            database = number
        }
        self.init(host: String(host), port: port, user: user, password: password, database: database,
                  usesTLS: scheme == "rediss")
    }

    public var description: String {
        var login = ""
        if user != nil || password != nil {
            login = (user ?? "") + (password == nil ? "" : ":***") + "@"
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "rediss" : "redis")://\(login)\(shownHost):\(port)/\(database)"
    }

    /// `text` with any login (everything before the last `@`, after `://`) hidden, for error messages.
    static func redacted(_ text: String) -> String {
        guard let at = text.range(of: "@", options: .backwards) else { return text }
        let start = text.range(of: "://").map { $0.upperBound } ?? text.startIndex
        guard at.lowerBound >= start else { return text }
        return String(text[..<start]) + "***" + String(text[at.lowerBound...])
    }
}

/// Why a Redis URL was refused; each message says what a good one looks like.
public enum RedisURLError: Error, Sendable, Hashable, CustomStringConvertible {
    case notARedisURL(String)
    case unsupportedScheme(String)
    case missingHost(String)
    case badPort(String)
    case badDatabase(String)

    private static let form = "expected redis://[user:password@]host:port/db or rediss://… for TLS"

    public var description: String {
        switch self {
        case .notARedisURL(let text): "'\(text)' is not a Redis URL: \(Self.form)"
        case .unsupportedScheme(let scheme): "scheme '\(scheme)' is not redis or rediss: \(Self.form)"
        case .missingHost(let text): "'\(text)' has no host: \(Self.form)"
        case .badPort(let port): "port '\(port)' is not a number from 1 to 65535: \(Self.form)"
        case .badDatabase(let path): "database '\(path)' is not a non-negative number (the /db part): \(Self.form)"
        }
    }
}
