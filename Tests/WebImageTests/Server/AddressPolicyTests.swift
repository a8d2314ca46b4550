import Testing
@testable import WebImageServer

@Suite("Source addresses: IANA special-purpose registries and cloud platforms")
struct AddressPolicyTests {
    private let policy = AddressPolicy()

    @Test("every registry row that is not globally reachable is refused, and the cloud platforms' internal addresses", arguments: [
        // IPv4 special-purpose registry
        "0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254", "169.254.0.1", "172.16.0.1", "192.0.0.1",
        "192.0.0.8", "192.0.0.170", "192.0.0.171", "192.0.2.1", "192.88.99.1", "192.168.0.1", "198.18.0.1", "198.19.255.255",
        "198.51.100.1", "203.0.113.1", "224.0.0.1", "239.1.2.3", "240.0.0.1", "255.255.255.255",
        // Cloud platforms
        "169.254.169.254", "168.63.129.16", "100.100.100.200", "192.0.0.192", "fd00:ec2::254",
        // IPv6 special-purpose registry
        "::", "100::1", "100:0:0:1::1", "2001:2::1", "2001:10::1", "2001:db8::1", "3fff::1", "5f00::1",
        "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1", "ff0e::1",
        // Outside global unicast 2000::/3
        "4000::1", "8000::1", "e000::1", "1::1",
    ])
    func refusedRows(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(policy.refusal(for: address) != nil, "\(text) must be refused")
    }

    @Test("IPv6 forms carrying a refused IPv4 address are refused, however it is carried", arguments: [
        "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:168.63.129.16",  // IPv4-mapped
        "64:ff9b::10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::168.63.129.16",  // NAT64 64:ff9b::/96
        "64:ff9b:1::a00:1", "64:ff9b:1:0:a:a00:100::", "64:ff9b:1::808:808",  // local-use NAT64: refused outright
        "::ffff:0:10.0.0.1", "::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8",  // SIIT: refused outright
        "::10.0.0.1", "::8.8.8.8",  // IPv4-compatible: refused outright
        "2002:a00:1::1", "2002:a9fe:a9fe::", "2002:a83f:8110::1",  // 6to4 of 10.0.0.1, 169.254.169.254, 168.63.129.16
        // Teredo: server 65.54.227.120, client 10.0.0.1 (f5ff:fffe); and one naming two public addresses: refused outright
        "2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ])
    func embeddedIPv4(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(policy.refusal(for: address) != nil, "\(text) must be refused")
    }

    @Test("globally reachable addresses pass, and the IPv6 forms that route to one", arguments: [
        "93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.0.1.1", "198.20.0.1", "168.63.129.17",
        "192.31.196.1", "192.52.193.1", "192.175.48.1",  // AS112, AMT, AS112: globally reachable rows
        "2606:4700::1111", "2a00:1450::1", "2620:4f:8000::1",
        "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1",
    ])
    func allowed(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(policy.refusal(for: address) == nil, "\(text): \(policy.refusal(for: address) ?? "")")
    }

    @Test("allowing loopback lets 127/8, ::1 and ::ffff:127.x through, and nothing else the registries refuse", arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("::1", true), ("::ffff:127.0.0.1", true), ("64:ff9b::127.0.0.1", true),
        ("::ffff:0:127.0.0.1", false), ("::127.0.0.1", false), ("0.0.0.0", false), ("::", false), ("169.254.169.254", false),
        ("10.0.0.1", false), ("fd00:ec2::254", false),
    ])
    func loopbackFlag(_ text: String, allowed: Bool) throws {
        let open = AddressPolicy(allowsLoopback: true)
        #expect((open.refusal(for: try #require(IPAddress(text))) == nil) == allowed, "\(text)")
    }

    @Test("CIDR containment at every prefix length", arguments: [
        ("10.0.0.0/8", "10.255.255.255", true), ("10.0.0.0/8", "11.0.0.0", false), ("0.0.0.0/0", "8.8.8.8", true),
        ("198.18.0.0/15", "198.19.1.1", true), ("198.18.0.0/15", "198.20.0.0", false),
        ("2001::/23", "2001:1ff::1", true), ("2001::/23", "2001:200::1", false), ("fe80::/10", "febf::1", true),
        ("fe80::/10", "fec0::1", false), ("::1/128", "::1", true), ("::1/128", "::2", false), ("10.0.0.0/8", "::ffff:10.0.0.1", false),
    ])
    func ranges(_ range: String, _ text: String, _ inside: Bool) throws {
        #expect(AddressRange(range).contains(try #require(IPAddress(text))) == inside, "\(text) in \(range)")
    }
}
