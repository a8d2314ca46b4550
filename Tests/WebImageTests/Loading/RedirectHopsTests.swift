import Foundation
import HTTPTypes
import Testing
@testable import WebImage

/// Sends every host to the loopback origin, so a download can go from one host name to another.
private struct PinToLoopback: DownloadHopPolicy {
    func allow(next url: URL) async throws(WebImageError) -> DownloadHop {
        DownloadHop(url: url, address: "127.0.0.1")
    }
}

/// Every hop of a redirect chain gets a request built for its own host, on every carrier.
@Suite("Redirect hops: one request builder for every hop, and the redirect handler")
struct RedirectHopsTests {
    private static let signature = HTTPField.Name("X-Signature")!

    private func credential(_ host: String) -> DownloadCredential {
        DownloadCredential(username: host, password: "secret", hosts: [host], allowsPlainHTTP: true)
    }

    @Test("a redirect to another host gets that host's cookies and credentials and a modifier's signature, never the first host's", arguments: DownloaderConfig.Transport.carriers)
    func crossHostRedirect(_ carrier: DownloaderConfig.Transport) async throws {
        let jar = CookieJar()
        try await withOrigin(over: carrier, {
            $0.hopPolicy = PinToLoopback()
            $0.cookieJar = jar
            $0.credentials = [credential("a.pinned.test"), credential("b.pinned.test")]
            $0.requestModifier = RequestModifier { request in
                var request = request
                request.headerFields[Self.signature] = "signed " + (request.url.host ?? "") + request.url.path
                return request
            }
        }) { origin, downloader in
            let (a, b) = ("http://a.pinned.test:\(origin.port)", "http://b.pinned.test:\(origin.port)")
            jar.store(setCookieHeaders: ["first=a"], from: URL(string: a + "/")!)
            jar.store(setCookieHeaders: ["second=b"], from: URL(string: b + "/")!)
            origin.route("/start", .redirect(to: b + "/end.png"))
            origin.route("/end.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: URL(string: a + "/start")!, options: .handleCookies)
            let first = try #require(origin.requests("/start").first)
            let second = try #require(origin.requests("/end.png").first)
            #expect(first.header("authorization") == credential("a.pinned.test").headerValue)
            #expect(second.header("authorization") == credential("b.pinned.test").headerValue)
            #expect(first.header("cookie") == "first=a" && second.header("cookie") == "second=b")
            #expect(first.header("x-signature") == "signed a.pinned.test/start")
            #expect(second.header("x-signature") == "signed b.pinned.test/end.png")
            #expect(second.header("host") == "b.pinned.test:\(origin.port)")
        }
    }

    @Test("a redirect handler sees each redirect and the next request: it may change the request, or stop — the redirect's 302 is then the answer (2001)", arguments: DownloaderConfig.Transport.carriers)
    func redirectHandler(_ carrier: DownloaderConfig.Transport) async throws {
        let mark = HTTPField.Name("X-Redirected-From")!
        try await withOrigin(over: carrier, {
            $0.redirectHandler = RedirectHandler { response, next in
                guard !next.url.path.hasSuffix("stop.png") else { return nil }
                var next = next
                next.headerFields[mark] = "\(response.statusCode) \(response.url.path)"
                return next
            }
        }) { origin, downloader in
            origin.route("/a", .redirect(to: "/b.png", status: 307))
            origin.route("/b.png", .fixture("png-rgb.png"))
            origin.route("/c", .redirect(to: "/stop.png"))
            origin.route("/stop.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/a"))
            #expect(origin.requests("/b.png").first?.header("x-redirected-from") == "307 /a")
            await #expect(throws: WebImageError.invalidDownloadStatusCode(302)) {
                _ = try await downloader.loadImage(with: origin.url("/c"))
            }
            #expect(origin.requestCount("/stop.png") == 0)
        }
    }
}
