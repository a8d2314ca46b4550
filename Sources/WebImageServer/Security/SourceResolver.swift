import Foundation
import WebImage

/// Turns a source URL into the one address it will be fetched from, or a refusal: http(s) only,
/// the host on the allowlist (when there is one), every address the host resolves to allowed by
/// the ``AddressPolicy``. The caller connects to the address returned and to nothing else (see
/// ``PinnedClients``), so a DNS answer that changes between this check and the connection — DNS
/// rebinding — has nothing left to change.
public struct SourceResolver: Sendable {
    public var addressPolicy: AddressPolicy
    /// Hosts sources may come from: `images.example.com` exactly, or `*.example.com` for its
    /// subdomains. Empty = any host whose addresses the policy allows.
    public var allowedHosts: [String]

    /// getaddrinfo blocks; it runs on threads of its own, never on Swift concurrency's or GCD's.
    private static let lookups = ImageWorkQueue(label: "WebImageServer.resolve", maxConcurrentCount: 4)

    public init(addressPolicy: AddressPolicy = AddressPolicy(), allowedHosts: [String] = []) {
        self.addressPolicy = addressPolicy
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
    }

    /// Where `url` may be fetched from: its host as written (for TLS and `Host`) and the checked address.
    public struct Target: Sendable, Hashable {
        public var host: String
        public var address: IPAddress
    }

    public func resolve(_ url: URL) async throws(SourceRefusal) -> Target {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .scheme(url.scheme ?? "")
        }
        guard let rawHost = url.host, !rawHost.isEmpty else { throw .noHost }
        let host = Self.normalized(rawHost)
        if !allowedHosts.isEmpty, !allowedHosts.contains(where: { Self.host(host, matches: $0) }) {
            throw .hostNotAllowed(host)
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            addresses = await Self.lookups.run { Self.lookUp(host) }
        }
        guard let first = addresses.first else { throw .unresolvable(host) }
        // Every address must pass: a name with one public and one private answer is refused
        // outright rather than hoping the connection picks the public one.
        for address in addresses {
            if let reason = addressPolicy.refusal(for: address) { throw .address(address, reason) }
        }
        return Target(host: host, address: first)
    }

    /// Lower case, without the brackets of an IPv6 literal or a trailing root dot (`localhost.`).
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    static func host(_ host: String, matches pattern: String) -> Bool {
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
        return host == pattern
    }

    /// The system resolver's answer (`/etc/hosts`, DNS), every family; inet_aton's spellings
    /// (`127.1`, `0x7f000001`, `2130706433`) come back as the address they mean.
    private static func lookUp(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
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
    case hostNotAllowed(String)
    case unresolvable(String)
    case address(IPAddress, String)
    case tooManyRedirects(Int)

    public var description: String {
        switch self {
        case .scheme(let scheme): "sources must be http or https, not \(scheme.isEmpty ? "a scheme-less URL" : scheme)"
        case .noHost: "the source URL has no host"
        case .hostNotAllowed(let host): "\(host) is not an allowed source host"
        case .unresolvable(let host): "\(host) does not resolve"
        case .address(let address, let reason): "the source resolves to \(address), a \(reason) address"
        case .tooManyRedirects(let limit): "the source redirected more than \(limit) times"
        }
    }
}
