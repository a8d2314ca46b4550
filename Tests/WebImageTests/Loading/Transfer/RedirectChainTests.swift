import Foundation
import HTTPTypes
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
    func methods() {
        for (status, method) in [(303, HTTPRequest.Method.get), (301, .get), (302, .get), (307, .post), (308, .post)] {
            #expect(RedirectChain.method(after: status, of: .post) == method, "\(status)")
        }
        #expect(RedirectChain.method(after: 302, of: .head) == .head)
    }

    @Test("a URL twice is a cycle; past the limit is an error")
    func cyclesAndLimit() throws {
        func hop(_ text: String) -> DownloadRequest { DownloadRequest(url: URL(string: text)!, timeout: 15) }
        var chain = RedirectChain(from: start, limit: 2)
        _ = try chain.follow(hop("https://a.example/b.png")).get()
        _ = try chain.follow(hop("https://c.example/d.png")).get()
        #expect(throws: WebImageError.transport(.tooManyRedirects(limit: 2))) { try chain.follow(hop("https://e.example/f.png")).get() }
        var cycle = RedirectChain(from: start, limit: 5)
        #expect(throws: WebImageError.transport(.redirectLoop)) { try cycle.follow(hop(start.absoluteString)).get() }
    }
}
