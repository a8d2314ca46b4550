/// Which resolved addresses a source may be fetched from: globally reachable unicast only. Refused:
/// every row of IANA's IPv4 and IPv6 special-purpose registries that is not globally reachable
/// (`SpecialPurposeAddresses`), IPv6 outside global unicast 2000::/3, the cloud platforms' internal
/// addresses (`CloudInternalAddresses`), and loopback unless allowed. IPv6 forms that route to an
/// IPv4 address — IPv4-mapped, NAT64 `64:ff9b::/96`, 6to4 — are judged as that IPv4 address; the
/// other forms that carry one (SIIT, IPv4-compatible, local-use NAT64, Teredo) are refused outright.
public struct AddressPolicy: Sendable, Hashable {
    /// Lets 127.0.0.0/8 and ::1 through (`--allow-loopback-sources`); everything else stays refused.
    public var allowsLoopback: Bool

    public init(allowsLoopback: Bool = false) {
        self.allowsLoopback = allowsLoopback
    }

    /// Why `address` may not be fetched from, or nil when it may.
    public func refusal(for address: IPAddress) -> String? {
        if let reason = CloudInternalAddresses.rows.reason(for: address) { return reason }
        switch address {
        case .v4:
            if Self.ipv4Loopback.contains(address) { return allowsLoopback ? nil : "loopback (127.0.0.0/8)" }
            return SpecialPurposeAddresses.ipv4.reason(for: address)
        case .v6:
            if address == Self.ipv6Loopback { return allowsLoopback ? nil : "loopback (::1)" }
            if let reason = SpecialPurposeAddresses.ipv6Outright.reason(for: address) { return reason }
            if let v4 = address.embeddedIPv4 { return refusal(for: .v4(v4)) }
            if let reason = SpecialPurposeAddresses.ipv6.reason(for: address) { return reason }
            if !SpecialPurposeAddresses.ipv6GlobalUnicast.contains(address) { return "reserved (outside 2000::/3)" }
            return nil
        }
    }

    private static let ipv4Loopback = AddressRange("127.0.0.0/8")  // RFC 1122 §3.2.1.3
    private static let ipv6Loopback = IPAddress("::1")!  // RFC 4291 §2.5.3
}
