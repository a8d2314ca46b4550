import Testing
@testable import WebImage

/// One rule for `*.example.com` allowlists, credential hosts and cookie domains.
@Suite("HostPattern")
struct HostPatternTests {
    @Test("exact and wildcard patterns, normalised as hosts are", arguments: [
        ("*.example.com", "img.example.com", true), ("*.example.com", "a.b.example.com", true),
        ("*.example.com", "example.com", false), ("*.example.com", "evilexample.com", false), ("*.example.com", ".example.com", false),
        ("*.EXAMPLE.com.", "img.example.com", true), ("img.example.com", "img.example.com", true),
        ("IMG.example.com..", "img.example.com", true), ("img.example.com", "a.img.example.com", false),
        ("127.0.0.1", "127.0.0.1", true), ("[::1]", "::1", true), ("*.", "a.example", false), ("*", "a.example", false),
    ])
    func patterns(_ pattern: String, host: String, matches: Bool) {
        #expect(HostPattern(pattern).matches(host) == matches, "\(pattern) ~ \(host)")
    }

    @Test("a wildcard or a domain never matches an IP address; only an exact pattern does", arguments: [
        ("*.0.0.1", "127.0.0.1"), ("*.1", "127.1"), ("*.0x1", "0x7f.0x1"), ("*.1", "::1"), ("*.0.1", "::ffff:127.0.0.1"),
    ])
    func addressesHaveNoSubdomains(_ suffix: String, address: String) {
        #expect(HostPattern.isAddress(address))
        #expect(!HostPattern(suffix).matches(address))
        #expect(!HostPattern(kind: .domain, name: String(suffix.dropFirst(2))).matches(address))
        #expect(HostPattern(address).matches(address) && HostPattern(kind: .domain, name: address).matches(address))
    }

    @Test("an address is an IPv6 literal or a name whose last label is a number (WHATWG URL's rule)", arguments: [
        ("127.0.0.1", true), ("::1", true), ("127.1", true), ("0x7f.1", true), ("a.0x", true), ("2130706433", true),
        ("example.com", false), ("123.example", false), ("1.2.3.example", false), ("a.0xg", false), ("xn--bcher-kva.de", false), ("", false),
    ])
    func addresses(_ host: String, isAddress: Bool) {
        #expect(HostPattern.isAddress(host) == isAddress, "\(host)")
    }

    @Test("a cookie domain matches itself and its subdomains")
    func domains() {
        let domain = HostPattern(kind: .domain, name: "Example.com.")
        #expect(domain.matches("example.com") && domain.matches("img.example.com"))
        #expect(!domain.matches("evilexample.com") && !domain.matches("com"))
    }
}
