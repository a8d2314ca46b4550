import Foundation

/// Where an `http` or `https` URL points — scheme, host and port (RFC 6454's origin) — read one
/// way for every decision made on it: same-origin redirects, cookies, credentials, the lean
/// client's connection pool and the image server's source checks. The host is normalised
/// (``normalizedHost(_:)``), so `HTTPS://A.example.:443` and `https://a.example` are one origin.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The schemes a download speaks.
    package enum Scheme: String, Hashable, Sendable, CaseIterable {
        case http, https

        /// The scheme of `url` when it is `http` or `https`, in any case; read off `absoluteString`,
        /// which starts with the scheme (`URL.scheme` builds a new `String` on every call).
        package init?(of url: URL) {
            var text = url.absoluteString
            guard let scheme = text.withUTF8({ Self(schemeOf: $0) }) else { return nil }
            self = scheme
        }

        /// The scheme spelled `name`, in any case.
        package init?(named name: some StringProtocol) {
            guard let scheme = Self(rawValue: name.lowercased()) else { return nil }
            self = scheme
        }

        /// The scheme `bytes` (a URL's text) start with.
        init?(schemeOf bytes: UnsafeBufferPointer<UInt8>) {
            guard let length = URL.schemeLength(in: bytes) else { return nil }
            if ASCII.equalsIgnoringCase(bytes[..<length], "https") {
                self = .https
            } else if ASCII.equalsIgnoringCase(bytes[..<length], "http") {
                self = .http
            } else {
                return nil
            }
        }

        /// The port a URL of this scheme means when it names none.
        package var defaultPort: Int { self == .https ? 443 : 80 }
    }

    package let scheme: Scheme
    /// Lower case, without an IPv6 literal's brackets or trailing dots; IDNA as `URL` gives it
    /// (an internationalised name arrives in its `xn--` form).
    package let host: String
    /// The port written, or else the scheme's.
    package let port: Int

    /// The origin of `url`; nil unless it is `http` or `https` with a host of no controls or
    /// spaces (a percent-decoded `%0D%0A` must never reach a `Host` line) and a port that fits.
    package init?(_ url: URL) {
        var text = url.absoluteString
        guard let parts = text.withUTF8({ Self.parts(of: $0) }) else { return nil }
        let host: String
        if let written = parts.host {
            host = written
        } else {
            guard let decoded = url.host.map(Self.normalizedHost), !decoded.utf8.contains(where: Self.isControlOrSpace) else { return nil }
            host = decoded
        }
        guard !host.isEmpty else { return nil }
        (scheme, self.host, port) = (parts.scheme, host, parts.port ?? parts.scheme.defaultPort)
    }

    /// Whether `a` and `b` are both `http(s)` URLs of one origin (credentials and cookies may follow a redirect).
    package static func same(_ a: URL, _ b: URL) -> Bool {
        guard let left = Origin(a) else { return false }
        return left == Origin(b)
    }

    /// Whether a connection to this origin is encrypted.
    package var isSecure: Bool { scheme == .https }

    /// `scheme://host:port`, the port always written and an IPv6 literal in brackets.
    package var description: String { "\(scheme.rawValue)://\(Self.bracketed(host)):\(port)" }

    /// The one spelling of a host: lower case, without the brackets of an IPv6 literal or trailing
    /// root dots (`a.example.` and `a.example..` are `a.example`).
    package static func normalizedHost(_ host: String) -> String {
        // Unicode's lower case first for a host that is not ASCII (an ASCII one is lowered in place).
        var text = host.utf8.allSatisfy { $0 < 0x80 } ? host : host.lowercased()
        return text.withUTF8 { normalizedHost(bytes: $0[...]) }
    }

    /// `host` normalised as a URL writes it: an IPv6 literal in brackets.
    package static func urlSpelling(ofHost host: String) -> String { bracketed(normalizedHost(host)) }

    private static func bracketed(_ host: String) -> String {
        host.utf8.contains(UInt8(ascii: ":")) ? "[" + host + "]" : host
    }

    /// ``normalizedHost(_:)`` on bytes: ASCII letters lowered, brackets and trailing dots dropped.
    private static func normalizedHost(bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var host = bytes
        if host.first == UInt8(ascii: "["), host.last == UInt8(ascii: "]") { host = host.dropFirst().dropLast() }
        while host.last == UInt8(ascii: ".") { host = host.dropLast() }
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        guard host.contains(where: upper.contains) else { return String(decoding: host, as: UTF8.self) }
        return String(decoding: host.lazy.map { upper.contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func isControlOrSpace(_ byte: UInt8) -> Bool { byte <= 0x20 || byte == 0x7F }

    /// Scheme, host and port cut out of a URL's text in place (`URL.host` decodes, which costs
    /// more than the rest of a bulk download's route). The host is nil when only `URL.host` can
    /// read it: percent-escaped or not ASCII.
    private static func parts(of bytes: UnsafeBufferPointer<UInt8>) -> (scheme: Scheme, host: String?, port: Int?)? {
        guard let scheme = Scheme(schemeOf: bytes) else { return nil }
        let start = scheme.rawValue.utf8.count + 3
        guard bytes.count >= start, bytes[start - 2] == UInt8(ascii: "/"), bytes[start - 1] == UInt8(ascii: "/") else { return nil }
        var end = start
        var hostStart = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            if bytes[end] == UInt8(ascii: "@") { hostStart = end + 1 }  // after the user info
            end += 1
        }
        var hostEnd = hostStart
        if hostStart < end, bytes[hostStart] == UInt8(ascii: "[") {
            while hostEnd < end, bytes[hostEnd] != UInt8(ascii: "]") { hostEnd += 1 }
            guard hostEnd < end else { return nil }
            hostEnd += 1
        } else {
            while hostEnd < end, bytes[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
        }
        var port: Int?
        if hostEnd < end {
            guard bytes[hostEnd] == UInt8(ascii: ":") else { return nil }
            var value = 0
            for byte in bytes[(hostEnd + 1)..<end] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard value <= 65_535 else { return nil }
            }
            if hostEnd + 1 < end { port = value }  // `host:` alone means the scheme's port
        }
        let written = bytes[hostStart..<hostEnd]
        guard !written.contains(where: isControlOrSpace) else { return nil }
        guard !written.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 }) else { return (scheme, nil, port) }
        return (scheme, normalizedHost(bytes: written), port)
    }
}
