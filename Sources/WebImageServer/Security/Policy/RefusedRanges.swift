/// A block sources may not come from, and why (the reason goes to the log, never to the client).
struct RefusedRange: Sendable {
    let range: AddressRange
    let reason: String

    init(_ range: String, _ reason: String) {
        self.range = AddressRange(range)
        self.reason = "\(reason) (\(range))"
    }
}

extension [RefusedRange] {
    func reason(for address: IPAddress) -> String? {
        first { $0.range.contains(address) }?.reason
    }
}

/// IANA's special-purpose address registries taken whole: every row whose "Globally Reachable" is
/// False or N/A (iana.org/assignments/iana-ipv4-special-registry, iana-ipv6-special-registry).
/// Loopback is not here: ``AddressPolicy`` lets it through when asked to.
enum SpecialPurposeAddresses {
    static let ipv4: [RefusedRange] = [
        RefusedRange("0.0.0.0/8", "this network"),  // RFC 791 §3.2; 0.0.0.0/32 RFC 1122
        RefusedRange("10.0.0.0/8", "private-use"),  // RFC 1918
        RefusedRange("100.64.0.0/10", "shared address space / CGNAT"),  // RFC 6598
        RefusedRange("169.254.0.0/16", "link-local"),  // RFC 3927
        RefusedRange("172.16.0.0/12", "private-use"),  // RFC 1918
        // RFC 6890 (whole /24: DS-Lite 192.0.0.0/29 RFC 7335, dummy 192.0.0.8 RFC 7600, NAT64
        // discovery 192.0.0.170-171 RFC 7050; its anycast rows .9 and .10 serve no HTTP).
        RefusedRange("192.0.0.0/24", "IETF protocol assignments"),
        RefusedRange("192.0.2.0/24", "documentation (TEST-NET-1)"),  // RFC 5737
        RefusedRange("192.88.99.0/24", "6to4 relay anycast, deprecated"),  // RFC 7526
        RefusedRange("192.168.0.0/16", "private-use"),  // RFC 1918
        RefusedRange("198.18.0.0/15", "benchmarking"),  // RFC 2544
        RefusedRange("198.51.100.0/24", "documentation (TEST-NET-2)"),  // RFC 5737
        RefusedRange("203.0.113.0/24", "documentation (TEST-NET-3)"),  // RFC 5737
        RefusedRange("224.0.0.0/4", "multicast"),  // RFC 5771 (IANA multicast registry)
        RefusedRange("255.255.255.255/32", "limited broadcast"),  // RFC 8190, RFC 919
        RefusedRange("240.0.0.0/4", "reserved"),  // RFC 1112 §4
    ]

    /// Refused whatever IPv4 address they carry: forms only meaningful inside one network.
    static let ipv6Outright: [RefusedRange] = [
        RefusedRange("::/128", "unspecified"),  // RFC 4291 §2.5.2
        RefusedRange("::ffff:0:0:0/96", "IPv4-translated (SIIT)"),  // RFC 2765 §2.1; a translator's own domain
        RefusedRange("::/96", "IPv4-compatible, deprecated"),  // RFC 4291 §2.5.5.1
        RefusedRange("64:ff9b:1::/48", "local-use IPv4/IPv6 translation"),  // RFC 8215
        // RFC 4380: reached through relays to a client's NAT, whichever IPv4 addresses it names
        // (server: bits 32-63; client: the last 32 bits XOR 0xffffffff); the registry says N/A.
        RefusedRange("2001::/32", "Teredo"),
    ]

    /// The rest of the IPv6 registry, judged after the forms that carry a routable IPv4 address.
    static let ipv6: [RefusedRange] = [
        RefusedRange("100::/64", "discard-only"),  // RFC 6666
        RefusedRange("100:0:0:1::/64", "dummy prefix"),  // RFC 9780
        // RFC 2928; benchmarking 2001:2::/48 RFC 5180, ORCHID 2001:10::/28 RFC 4843; its
        // anycast and AS112 rows serve no HTTP.
        RefusedRange("2001::/23", "IETF protocol assignments"),
        RefusedRange("2001:db8::/32", "documentation"),  // RFC 3849
        RefusedRange("3fff::/20", "documentation"),  // RFC 9637
        RefusedRange("5f00::/16", "segment routing (SRv6) SIDs"),  // RFC 9602
        RefusedRange("fc00::/7", "unique local"),  // RFC 4193
        RefusedRange("fe80::/10", "link-local"),  // RFC 4291 §2.5.6
        RefusedRange("fec0::/10", "site-local, deprecated"),  // RFC 3879
        RefusedRange("ff00::/8", "multicast"),  // RFC 4291 §2.7
    ]

    /// IANA's IPv6 address space registry: only 2000::/3 is global unicast, the rest is reserved.
    static let ipv6GlobalUnicast = AddressRange("2000::/3")
}

/// Cloud platforms' internal services on addresses the registries alone would not all refuse:
/// instance metadata (credentials) and platform agents.
enum CloudInternalAddresses {
    static let rows: [RefusedRange] = [
        // AWS, GCP, Azure, OpenStack, Oracle instance metadata (AWS EC2 User Guide, "Instance metadata").
        RefusedRange("169.254.169.254/32", "cloud instance metadata"),
        // Azure WireServer and host agent (Microsoft Learn, "What is IP address 168.63.129.16?").
        RefusedRange("168.63.129.16/32", "Azure platform (WireServer)"),
        // Alibaba Cloud ECS instance metadata (Alibaba Cloud docs, "Instance metadata").
        RefusedRange("100.100.100.200/32", "Alibaba Cloud instance metadata"),
        // Oracle Cloud Infrastructure internal metadata/iSCSI address (Oracle Cloud docs).
        RefusedRange("192.0.0.192/32", "Oracle Cloud internal"),
        // AWS instance metadata over IPv6 (AWS EC2 User Guide, "Instance metadata service" IPv6 endpoint).
        RefusedRange("fd00:ec2::254/128", "AWS instance metadata (IPv6)"),
    ]
}
