import Foundation
import WebImage

/// Turns a source URL into the one address it will be fetched from, or a refusal: http(s) only,
/// a host of letters, digits, `-` and `.` (or an IP literal), on the allowlist when there is one,
/// every address it resolves to allowed by the ``AddressPolicy``. The caller fetches
/// ``Target/url`` — whose host is exactly the name that was checked — over a connection pinned to
/// ``Target/address`` (`SourceHopPolicy`), so a DNS answer that changes between this check
/// and the connection — DNS rebinding — has nothing left to change.
public struct SourceResolver: Sendable {
    /// A name service: every address `host` resolves to (empty when it does not). It may block.
    public typealias Lookup = @Sendable (_ host: String) -> [IPAddress]

    public var addressPolicy: AddressPolicy
    /// Hosts sources may come from: `images.example.com` exactly, or `*.example.com` for its
    /// subdomains (a wildcard never admits an IP address: list an address itself). Empty = any
    /// host whose addresses the policy allows.
    public var allowedHosts: [String]
    /// Where this server listens: sources there are refused (nil = not known).
    public var servingAddresses: ServingAddresses?
    private let names: DNSResolver

    /// `lookUp` replaces the server's name service (c-ares with a deadline, a bound on lookups in
    /// flight and a TTL cache; `/etc/hosts`, then DNS); a lookup given here gets the deadline and
    /// the bound, and is never cached.
    public init(addressPolicy: AddressPolicy = AddressPolicy(), allowedHosts: [String] = [], lookUp: Lookup? = nil) {
        self.init(addressPolicy: addressPolicy, allowedHosts: allowedHosts, names: lookUp.map { DNSResolver(lookUp: $0) } ?? .system)
    }

    init(addressPolicy: AddressPolicy = AddressPolicy(), allowedHosts: [String] = [], names: DNSResolver) {
        self.addressPolicy = addressPolicy
        self.allowedHosts = allowedHosts
        self.names = names
    }

    /// Where a source may be fetched from.
    public struct Target: Sendable, Hashable {
        /// The URL to fetch: the source with its host spelled exactly as ``host``.
        public let url: URL
        /// The host as the HTTP client reads it from ``url`` (for TLS and `Host`): the name the
        /// connection is pinned by.
        public let host: String
        /// The checked address, the only one connected to.
        public let address: IPAddress
    }

    public func resolve(_ url: URL) async throws(SourceRefusal) -> Target {
        guard Origin.Scheme(of: url) != nil else { throw .scheme(url.scheme ?? "") }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let rawHost = components.percentEncodedHost, !rawHost.isEmpty else { throw .noHost }
        // getaddrinfo and inet_pton stop at a NUL and other layers decode `%`: only a plain
        // spelling is judged, so the name checked is the name connected to.
        guard Self.isPlainHost(rawHost) else { throw .malformedHost }
        let host = Origin.normalizedHost(rawHost)
        guard !host.isEmpty else { throw .noHost }
        if !allowedHosts.isEmpty, !allowedHosts.contains(where: { HostPattern($0).matches(host) }) {
            throw .hostNotAllowed(host)
        }
        // The URL carries the normalized spelling, and the pin is keyed by the host the client
        // will read back from it: a spelling the pin misses (case, a trailing dot) cannot exist.
        components.percentEncodedHost = Origin.urlSpelling(ofHost: host)
        guard let pinnedURL = components.url, let origin = Origin(pinnedURL), let clientHost = pinnedURL.host,
              clientHost == host, origin.host == host else { throw .malformedHost }
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            do {
                addresses = try await names.addresses(for: host)
            } catch .timedOut {
                throw .lookupTimedOut(host)
            } catch {
                throw .unresolvable(host)
            }
        }
        guard let first = addresses.first else { throw .unresolvable(host) }
        // Every address must pass: a name with one public and one private answer is refused
        // outright rather than hoping the connection picks the public one.
        for address in addresses {
            if let reason = addressPolicy.refusal(for: address) { throw .address(address, reason) }
        }
        if let servingAddresses {
            for address in addresses where servingAddresses.contains(address, port: origin.port) {
                throw .selfReference(address, origin.port)
            }
        }
        return Target(url: pinnedURL, host: clientHost, address: first)
    }

    /// Letters, digits, `-` and `.`, or a bracketed IPv6 literal (no zone).
    static func isPlainHost(_ host: String) -> Bool {
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        return (bracketed ? host.utf8.dropFirst().dropLast() : host.utf8[...]).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."): true
            case UInt8(ascii: ":"): bracketed
            case UInt8(ascii: "g")...UInt8(ascii: "z"), UInt8(ascii: "G")...UInt8(ascii: "Z"), UInt8(ascii: "-"): !bracketed
            default: false
            }
        }
    }

    /// The system resolver's answer (`/etc/hosts`, DNS) through getaddrinfo, every family: it
    /// blocks, has no deadline and gives no TTL (the server's own lookups go through c-ares,
    /// ``init(addressPolicy:allowedHosts:lookUp:)``); inet_aton's spellings
    /// (`127.1`, `0x7f000001`, `2130706433`) come back as the address they mean.
    public static func systemLookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        // SOCK_STREAM (1 on Linux): the name is hidden from the release build by the c-ares module's socket headers.
        hints.ai_socktype = 1
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0 else { return [] }
        defer { freeaddrinfo(result) }
        var addresses: [IPAddress] = []
        var entry = result
        while let current = entry {
            if let sockaddr = current.pointee.ai_addr, let address = IPAddress(sockaddr), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}

/// Why a source was refused before any connection was made (the server answers 403).
public enum SourceRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    case scheme(String)
    case noHost
    case malformedHost
    case hostNotAllowed(String)
    case unresolvable(String)
    /// The host's DNS gave no answer within the lookup deadline (the server answers 504).
    case lookupTimedOut(String)
    case address(IPAddress, String)
    /// The source is this server's own listening address and port.
    case selfReference(IPAddress, Int)

    public var description: String {
        switch self {
        case .scheme(let scheme): "sources must be http or https, not \(scheme.isEmpty ? "a scheme-less URL" : scheme)"
        case .noHost: "the source URL has no host"
        case .malformedHost: "the source host is not a plain host name or IP address"
        case .hostNotAllowed(let host): "\(host) is not an allowed source host"
        case .unresolvable(let host): "\(host) does not resolve"
        case .lookupTimedOut(let host): "\(host) did not resolve in time"
        case .address(let address, let reason): "the source resolves to \(address), a \(reason) address"
        case .selfReference(let address, let port): "the source is this server itself (\(address) port \(port))"
        }
    }
}
