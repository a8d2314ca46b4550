import Foundation
import Testing
@testable import WebImage

/// Where a URL points, read one way for redirects, cookies, credentials, the lean client's pool
/// and the server's source checks.
@Suite("Origin")
struct OriginTests {
    @Test("scheme, normalised host and port: case, trailing dots, brackets, user info, IDNA as URL gives it, default and written ports", arguments: [
        ("https://a.example/x.png", "https", "a.example", 443),
        ("HTTP://A.Example/x.png", "http", "a.example", 80),
        ("http://a.example./x.png", "http", "a.example", 80),
        ("http://a.example..:8080/x.png", "http", "a.example", 8080),
        ("https://a.example:/x.png", "https", "a.example", 443),
        ("https://a.example:0443?q", "https", "a.example", 443),
        ("http://user:pass@A.example:81#f", "http", "a.example", 81),
        ("http://[::1]:8080/x.png", "http", "::1", 8080),
        ("http://[::FFFF:127.0.0.1]/", "http", "::ffff:127.0.0.1", 80),
        ("http://127.0.0.1:9/x.png", "http", "127.0.0.1", 9),
        ("http://Bücher.DE/x.png", "http", "xn--bcher-kva.de", 80),
        ("http://%41.example/x.png", "http", "a.example", 80),
    ])
    func normalisation(_ text: String, scheme: String, host: String, port: Int) throws {
        let url = try #require(URL(string: text))
        let origin = try #require(Origin(url))
        #expect(origin.scheme.rawValue == scheme && origin.host == host && origin.port == port, "\(text): \(origin)")
    }

    @Test("no origin: other schemes, no host, a port that does not fit, a host that decodes to a control or space", arguments: [
        "ftp://a.example/x.png", "file:///tmp/x.png", "data:image/png;base64,AAAA", "http:/a.example/x.png", "http://./x.png",
        "http://a.example:65536/x.png", "http://127.0.0.1%0D%0AX-Injected%3A%20yes/a.png", "http://a%20b.example/",
    ])
    func refused(_ text: String) throws {
        #expect(Origin(try #require(URL(string: text))) == nil, "\(text)")
    }

    @Test("agrees with Foundation's URL.host and URL.port, for absolute and relative-to-base URLs")
    func agreesWithFoundation() throws {
        let base = try #require(URL(string: "HTTPS://Base.Example:8443/dir/"))
        let urls = [
            URL(string: "http://a.example/b.png"), URL(string: "https://A.B.example.:444/"), URL(string: "http://[2001:DB8::1]/"),
            URL(string: "b.png", relativeTo: base), URL(string: "//other.example/b.png", relativeTo: base),
            URL(string: "http://u@h.example?x=@y"), URL(string: "http://h.example#@z"),
        ].compactMap { $0 }
        #expect(urls.count == 7)
        for url in urls {
            let origin = try #require(Origin(url), "\(url)")
            let host = try #require(url.host)
            #expect(origin.host == Origin.normalizedHost(host), "\(url)")
            #expect(origin.port == url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80), "\(url)")
            #expect(origin.scheme.rawValue == url.scheme?.lowercased(), "\(url)")
        }
    }

    @Test("same origin is scheme, host and port alike (the port a scheme implies counts as written)", arguments: [
        ("https://a.example/x", true), ("https://A.EXAMPLE./y", true), ("https://a.example:443/", true), ("HTTPS://a.example..", true),
        ("http://a.example/x", false), ("https://a.example:8443/x", false), ("http://a.example:443/x", false),
        ("https://b.example/x", false), ("ftp://a.example/x", false),
    ])
    func sameOrigin(_ text: String, same: Bool) throws {
        let url = try #require(URL(string: text))
        #expect(Origin.same(URL(string: "https://a.example/img.png")!, url) == same, "\(text)")
        #expect(Origin.same(url, URL(string: "https://a.example/img.png")!) == same, "\(text)")
    }

    @Test("the http/https check: http and https in any case, nothing else", arguments: [
        ("http", true), ("HTTPS", true), ("HtTp", true), ("httpx", false), ("http+unix", false), ("ftp", false), ("", false),
    ])
    func schemes(_ name: String, isHTTP: Bool) {
        #expect((Origin.Scheme(named: name) != nil) == isHTTP)
        #expect((URL(string: "\(name)://a.example/").map { Origin.Scheme(of: $0) != nil } ?? false) == isHTTP, "\(name)")
    }

    @Test("cookies and credentials for a.example. and a.example agree, in any case")
    func spellingsAgree() throws {
        let now = Date()
        for (setter, reader) in [("http://a.example./x", "http://A.EXAMPLE/y"), ("http://A.example/x", "http://a.example../y")] {
            let jar = CookieJar()
            jar.store(setCookieHeaders: ["host=1", "dom=2; Domain=A.Example."], from: URL(string: setter)!, now: now)
            #expect(jar.cookieHeader(for: URL(string: reader)!, now: now) == "host=1; dom=2", "\(setter) -> \(reader)")
            #expect(jar.cookieHeader(for: URL(string: "http://img.a.example./")!, now: now) == "dom=2")
        }
        for (pattern, url) in [("a.example.", "https://a.example/x"), ("a.example", "https://A.example./x"), ("*.A.example.", "https://img.a.example../x")] {
            let credential = DownloadCredential(username: "u", password: "p", hosts: [pattern])
            #expect(credential.applies(to: URL(string: url)!), "\(pattern) for \(url)")
        }
    }

    @Test("an IP address gets no domain cookies: a cookie for a parent of an address is refused, the address's own cookie kept")
    func addressCookies() {
        let jar = CookieJar()
        let now = Date()
        jar.store(setCookieHeaders: ["a=1; Domain=0.0.1", "b=2; Domain=127.0.0.1", "c=3"], from: URL(string: "http://127.0.0.1/x")!, now: now)
        #expect(jar.cookieHeader(for: URL(string: "http://127.0.0.1/")!, now: now) == "b=2; c=3")
    }
}
