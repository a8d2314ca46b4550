import Foundation
import Testing
@testable import WebImageServer

@Suite("Source addresses: no SSRF")
struct SourceResolverTests {
    private let policy = AddressPolicy()

    @Test("private, loopback, link-local, CGNAT, multicast, unspecified and reserved addresses are refused; public ones pass", arguments: [
        "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
        "192.0.2.10", "198.18.0.1", "::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1",
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "2002:7f00:1::", "::127.0.0.2",
        "2001:db8::1",
    ])
    func refused(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(policy.refusal(for: address) != nil, "\(text) must be refused")
    }

    @Test("public addresses pass", arguments: ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
    func allowed(_ text: String) throws {
        #expect(policy.refusal(for: try #require(IPAddress(text))) == nil)
    }

    @Test("allowing loopback lets 127/8 and ::1 (and their mapped forms) through, nothing else")
    func loopbackFlag() throws {
        let open = AddressPolicy(allowsLoopback: true)
        for text in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] { #expect(open.refusal(for: try #require(IPAddress(text))) == nil) }
        for text in ["10.0.0.1", "169.254.169.254", "0.0.0.0"] { #expect(open.refusal(for: try #require(IPAddress(text))) != nil) }
    }

    @Test("every spelling of a loopback address is judged by what it resolves to", arguments: [
        "http://127.1/a.png", "http://0x7f000001/a.png", "http://2130706433/a.png", "http://0177.0.0.1/a.png",
        "http://[::ffff:127.0.0.1]/a.png", "http://localhost./a.png", "http://LOCALHOST/a.png", "http://127.0.0.1.:80/a.png",
        "http://[::1]:8080/a.png", "http://0/a.png",
    ])
    func spellings(_ text: String) async throws {
        let url = try #require(URL(string: text))
        await #expect(throws: SourceRefusal.self, "\(text)") { try await SourceResolver().resolve(url) }
    }

    @Test("only http and https; an allowlist admits exact hosts and *.suffix subdomains only")
    func schemesAndAllowlist() async throws {
        for text in ["file:///etc/passwd", "data:image/png;base64,AAAA", "ftp://example.com/a.png", "gopher://127.0.0.1:6379/_x"] {
            let url = try #require(URL(string: text))
            await #expect(throws: SourceRefusal.self) { try await SourceResolver().resolve(url) }
        }
        let resolver = SourceResolver(addressPolicy: AddressPolicy(allowsLoopback: true), allowedHosts: ["127.0.0.1", "*.example.com"])
        #expect(try await resolver.resolve(URL(string: "http://127.0.0.1:9/a.png")!).address == IPAddress("127.0.0.1"))
        await #expect(throws: SourceRefusal.hostNotAllowed("localhost")) { try await resolver.resolve(URL(string: "http://localhost/a.png")!) }
        let named = SourceResolver(
            addressPolicy: AddressPolicy(allowsLoopback: true), allowedHosts: ["*.Example.COM."], lookUp: { _ in [IPAddress("127.0.0.1")!] })
        #expect(try await named.resolve(URL(string: "http://IMG.example.com./a.png")!).host == "img.example.com")
        await #expect(throws: SourceRefusal.hostNotAllowed("example.com")) { try await resolver.resolve(URL(string: "http://example.com/a.png")!) }
        await #expect(throws: SourceRefusal.hostNotAllowed("evilexample.com")) { try await resolver.resolve(URL(string: "http://evilexample.com/a.png")!) }
        // A wildcard names hosts, never addresses: `*.0.0.1` does not admit 127.0.0.1.
        let wildcardOnly = SourceResolver(addressPolicy: AddressPolicy(allowsLoopback: true), allowedHosts: ["*.0.0.1"])
        await #expect(throws: SourceRefusal.hostNotAllowed("127.0.0.1")) { try await wildcardOnly.resolve(URL(string: "http://127.0.0.1/a.png")!) }
    }

    @Test("only a plain host is judged: letters, digits, - and . (or a bracketed IPv6 literal); NUL, %, space and controls are refused",
          arguments: [("images.example.com", true), ("a-b.EXAMPLE.com.", true), ("127.0.0.1", true), ("[::ffff:127.0.0.1]", true),
                      ("127.0.0.1%00.example.com", false), ("a%2eb", false), ("a b", false), ("a_b.example", false),
                      ("[fe80::1%25eth0]", false), ("[::1]x", false), ("::1", false)])
    func plainHosts(_ host: String, plain: Bool) {
        #expect(SourceResolver.isPlainHost(host) == plain)
    }

    @Test("the target URL carries exactly the host the pin is keyed by: lower case, no trailing dot, the checked address")
    func targetSpelling() async throws {
        let resolver = SourceResolver(addressPolicy: AddressPolicy(allowsLoopback: true), lookUp: { _ in [IPAddress("127.0.0.1")!] })
        for text in ["http://B.REBIND.test/a.png?x=1", "http://c.rebind.test./a.png?x=1", "http://d.ReBind.TEST:8080/a.png?x=1"] {
            let target = try await resolver.resolve(try #require(URL(string: text)))
            #expect(target.url.host == target.host && target.host.hasSuffix("rebind.test"), "\(text)")
            #expect(target.url.path == "/a.png" && target.url.query == "x=1")
            #expect(target.address == IPAddress("127.0.0.1"))
        }
        let v6 = try await resolver.resolve(try #require(URL(string: "http://[::1]:8080/a.png")))
        #expect(v6.host == "::1" && v6.url.port == 8080)
    }
}
