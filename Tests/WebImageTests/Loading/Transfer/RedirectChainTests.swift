import Foundation
import Testing
@testable import WebImage

/// How every download (each carrier alike) follows redirects, as
/// AsyncHTTPClient does.
@Suite("RedirectChain")
struct RedirectChainTests {
    private let start = URL(string: "https://a.example/img.png")!

    @Test("follows 301, 302, 303, 307 and 308 with a Location to http(s), resolved against the URL; nothing else, and nothing with a limit of 0")
    func targets() {
        let chain = RedirectChain(from: start, limit: 5)
        for status in [301, 302, 303, 307, 308] {
            #expect(chain.target(status: status, location: "/b.png", from: start) == URL(string: "https://a.example/b.png"))
        }
        #expect(chain.target(status: 200, location: "/b.png", from: start) == nil)
        #expect(chain.target(status: 302, location: nil, from: start) == nil)
        #expect(chain.target(status: 302, location: "ftp://a.example/b.png", from: start) == nil)
        #expect(RedirectChain(from: start, limit: 0).target(status: 302, location: "/b.png", from: start) == nil)
    }

    @Test("a 303 becomes a GET, a 301/302 of a POST too; a 307/308 keeps the method")
    func methods() throws {
        var request = DownloadRequest(url: start, headerFields: [:], timeout: 15)
        request.method = .post
        let target = URL(string: "https://a.example/b.png")!
        for (status, method) in [(303, HTTPRequest.Method.get), (301, .get), (302, .get), (307, .post), (308, .post)] as [(UInt, HTTPRequest.Method)] {
            var chain = RedirectChain(from: start, limit: 5)
            #expect(try chain.follow(request, to: target, status: status).get().method == method, "\(status)")
        }
    }

    @Test("credentials and cookies go only to the same host; a URL twice is a cycle; past the limit is an error")
    func hostsCyclesAndLimit() throws {
        let request = DownloadRequest(
            url: start, headerFields: [.authorization: "Basic x", .cookie: "a=b", .accept: "image/*"], timeout: 15)
        var chain = RedirectChain(from: start, limit: 2)
        let same = try chain.follow(request, to: URL(string: "https://a.example/b.png")!, status: 302).get()
        #expect(same.headerFields[.authorization] == "Basic x" && same.headerFields[.cookie] == "a=b")
        let other = try chain.follow(same, to: URL(string: "https://c.example/d.png")!, status: 302).get()
        #expect(other.headerFields[.authorization] == nil && other.headerFields[.cookie] == nil && other.headerFields[.accept] == "image/*")
        #expect(throws: (any Error).self) { try chain.follow(other, to: URL(string: "https://e.example/f.png")!, status: 302).get() }
        var cycle = RedirectChain(from: start, limit: 5)
        #expect(throws: (any Error).self) { try cycle.follow(request, to: start, status: 302).get() }
    }

    @Test("same origin is scheme + host + port: credentials and cookies never go from https down to http, nor to another port", arguments: [
        ("http://a.example/b.png", false), ("https://a.example:8443/b.png", false), ("http://a.example:443/b.png", false),
        ("https://A.EXAMPLE/b.png", true), ("https://a.example:443/b.png", true), ("https://a.example./b.png", true),
    ])
    func sameOrigin(_ text: String, keeps: Bool) throws {
        let request = DownloadRequest(
            url: start, headerFields: [.authorization: "Basic x", .cookie: "a=b", .proxyAuthorization: "Basic y"], timeout: 15)
        var chain = RedirectChain(from: start, limit: 2)
        let next = try chain.follow(request, to: try #require(URL(string: text)), status: 302).get()
        for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] {
            #expect((next.headerFields[name] != nil) == keeps, "\(name) to \(text)")
        }
    }
}
