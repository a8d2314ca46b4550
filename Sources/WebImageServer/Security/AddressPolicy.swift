/// Which resolved addresses a source may be fetched from: public unicast only. Refused: loopback
/// (unless allowed, for tests and local setups), RFC 1918 private, link-local (the cloud metadata
/// address 169.254.169.254 among them), CGNAT, multicast and broadcast, unspecified, reserved and
/// documentation ranges, IPv6 ULA, link- and site-local — and every IPv6 form that carries one of
/// those IPv4 addresses.
public struct AddressPolicy: Sendable, Hashable {
    /// Lets 127.0.0.0/8 and ::1 through (`--allow-loopback-sources`); everything else stays refused.
    public var allowsLoopback: Bool

    public init(allowsLoopback: Bool = false) {
        self.allowsLoopback = allowsLoopback
    }

    /// Why `address` may not be fetched from, or nil when it may.
    public func refusal(for address: IPAddress) -> String? {
        if let v4 = address.embeddedIPv4 { return refusal(forIPv4: v4) }
        switch address {
        case .v4(let value):
            return refusal(forIPv4: value)
        case .v6(let b):
            if b.allSatisfy({ $0 == 0 }) { return "unspecified" }
            if b[0..<15].allSatisfy({ $0 == 0 }), b[15] == 1 { return allowsLoopback ? nil : "loopback" }
            if b[0] & 0xFE == 0xFC { return "unique local (fc00::/7)" }
            if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return "link-local (fe80::/10)" }
            if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return "site-local (fec0::/10)" }
            if b[0] == 0xFF { return "multicast" }
            if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return "documentation (2001:db8::/32)" }
            if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return "discard (100::/64)" }
            return nil
        }
    }

    private func refusal(forIPv4 value: UInt32) -> String? {
        func within(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ bits: UInt32) -> Bool {
            let network = a << 24 | b << 16 | c << 8 | d
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return value & mask == network & mask
        }
        if within(127, 0, 0, 0, 8) { return allowsLoopback ? nil : "loopback" }
        let refused: [(UInt32, UInt32, UInt32, UInt32, UInt32, String)] = [
            (0, 0, 0, 0, 8, "unspecified (0.0.0.0/8)"),
            (10, 0, 0, 0, 8, "private (10.0.0.0/8)"),
            (100, 64, 0, 0, 10, "shared address space / CGNAT (100.64.0.0/10)"),
            (169, 254, 0, 0, 16, "link-local (169.254.0.0/16)"),
            (172, 16, 0, 0, 12, "private (172.16.0.0/12)"),
            (192, 0, 0, 0, 24, "IETF protocol assignments (192.0.0.0/24)"),
            (192, 0, 2, 0, 24, "documentation (192.0.2.0/24)"),
            (192, 88, 99, 0, 24, "6to4 relay anycast (192.88.99.0/24)"),
            (192, 168, 0, 0, 16, "private (192.168.0.0/16)"),
            (198, 18, 0, 0, 15, "benchmarking (198.18.0.0/15)"),
            (198, 51, 100, 0, 24, "documentation (198.51.100.0/24)"),
            (203, 0, 113, 0, 24, "documentation (203.0.113.0/24)"),
            (224, 0, 0, 0, 4, "multicast (224.0.0.0/4)"),
            (240, 0, 0, 0, 4, "reserved or broadcast (240.0.0.0/4)"),
        ]
        return refused.first { within($0.0, $0.1, $0.2, $0.3, $0.4) }?.5
    }
}
