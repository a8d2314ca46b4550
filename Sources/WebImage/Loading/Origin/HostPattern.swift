/// Which hosts a rule names: one host exactly (`img.example.com`, `127.0.0.1`), its subdomains
/// (`*.example.com`), or a cookie's domain (the domain and its subdomains). Patterns and hosts
/// are compared as ``Origin/normalizedHost(_:)`` spells them. An IP address has no subdomains:
/// only an exact pattern matches one, so `*.0.0.1` never matches `127.0.0.1`.
package struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    package enum Kind: Hashable, Sendable {
        /// The host itself.
        case exactly
        /// Any host below the name, not the name itself.
        case subdomains
        /// The name and any host below it (RFC 6265 domain matching).
        case domain
    }

    package let kind: Kind
    /// The normalised host, or the domain the pattern's hosts end in.
    package let name: String

    /// `*.example.com` for the subdomains of `example.com`; anything else names one host.
    package init(_ pattern: String) {
        if pattern.hasPrefix("*.") {
            self.init(kind: .subdomains, name: String(pattern.dropFirst(2)))
        } else {
            self.init(kind: .exactly, name: pattern)
        }
    }

    package init(kind: Kind, name: String) {
        self.kind = kind
        self.name = Origin.normalizedHost(name)
    }

    /// Whether `host` (normalised, as ``Origin/host``) is one of the pattern's.
    package func matches(_ host: String) -> Bool {
        if host == name { return kind != .subdomains }
        guard kind != .exactly, !name.isEmpty, !Self.isAddress(host) else { return false }
        // Below the name: `.name` ends the host, and a label comes before it.
        let (hostBytes, nameBytes) = (host.utf8, name.utf8)
        guard hostBytes.count > nameBytes.count + 1, hostBytes.reversed().starts(with: nameBytes.reversed()) else { return false }
        return hostBytes[hostBytes.index(hostBytes.endIndex, offsetBy: -nameBytes.count - 1)] == UInt8(ascii: ".")
    }

    /// Whether the origin's host is one of the pattern's.
    package func matches(_ origin: Origin) -> Bool { matches(origin.host) }

    /// Whether a normalised host is an IP address rather than a name: an IPv6 literal (a colon), or
    /// a last label that is a number (WHATWG URL's rule: `127.1` and `0x7f.1` are IPv4 addresses).
    package static func isAddress(_ host: String) -> Bool {
        let bytes = host.utf8
        if bytes.contains(UInt8(ascii: ":")) { return true }
        let last = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
        guard !last.isEmpty else { return false }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        if last.allSatisfy(isDigit) { return true }
        guard last.count >= 2, last.first == UInt8(ascii: "0"), last.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") else { return false }
        return last.dropFirst(2).allSatisfy { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }
    }

    /// The pattern as written in a configuration.
    package var description: String {
        switch kind {
        case .exactly: name
        case .subdomains: "*." + name
        case .domain: "." + name
        }
    }
}
