import Foundation
import HTTPTypes
import Synchronization
import Testing
@testable import WebImage

/// One request builder for every hop of a download, the first and each redirect: what each hop
/// carries is decided for that hop's own URL, by one rule.
@Suite("DownloadRequestBuilder: every hop's request by one rule")
struct DownloadRequestBuilderTests {
    private let first = URL(string: "https://a.example/img.png")!
    private let moved = DownloadResponse(url: URL(string: "https://a.example/img.png")!, status: .found)

    private func builder(
        headers: HTTPFields = [.authorization: "Bearer app", .cookie: "app=1", .proxyAuthorization: "Basic p", .accept: "image/*"],
        _ change: (inout DownloaderConfig) -> Void = { _ in }, options: DownloaderOptions = [], context: ImageLoaderContext = .default
    ) -> DownloadRequestBuilder {
        var config = DownloaderConfig()
        config.cookieJar = CookieJar()
        change(&config)
        let environment = DownloadEnvironment(
            carrier: HTTP1Transport(config: config), config: config, queue: DownloadQueue(maxConcurrent: 1, order: .fifo),
            events: DownloaderEventHub())
        return DownloadRequestBuilder(headers: headers, environment: environment, options: options, context: context)
    }

    private func next(_ builder: DownloadRequestBuilder, to text: String, method: HTTPRequest.Method = .get) throws -> DownloadRequest {
        let previous = try #require(builder.request(for: first))
        guard case .follow(let next) = builder.redirect(moved, from: previous, to: URL(string: text)!, method: method, first: first) else {
            throw WebImageError.invalidDownloadOperation(reason: "not followed")
        }
        return next
    }

    @Test("the downloader's own credentials and cookies stay within the first request's origin (scheme, host and port): never from https down to http, nor to another port", arguments: [
        ("http://a.example/b.png", false), ("https://a.example:8443/b.png", false), ("http://a.example:443/b.png", false),
        ("https://c.example/b.png", false), ("https://A.EXAMPLE/b.png", true), ("https://a.example:443/b.png", true),
        ("https://a.example./b.png", true),
    ])
    func sameOrigin(_ text: String, keeps: Bool) throws {
        let hop = try next(builder(), to: text)
        for name in [HTTPField.Name.authorization, .cookie, .proxyAuthorization] {
            #expect((hop.headerFields[name] != nil) == keeps, "\(name) to \(text)")
        }
        #expect(hop.headerFields[.accept] == "image/*" && hop.url.absoluteString == text && hop.method == .get)
    }

    @Test("each hop gets the credentials, cookies and modifier's say for its own host; the validators and the headers filter on every hop")
    func perHop() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=first"], from: first)
        jar.store(setCookieHeaders: ["c=second"], from: URL(string: "https://c.example/")!)
        let signed = Mutex<[String]>([])
        let builder = builder(headers: [.accept: "image/*"], {
            $0.cookieJar = jar
            $0.credentials = [DownloadCredential(username: "a", password: "1", hosts: ["a.example"]),
                              DownloadCredential(username: "c", password: "2", hosts: ["c.example"])]
            $0.headersFilter = { url, fields in
                var fields = fields
                fields[HTTPField.Name("X-Filtered")!] = url.host
                return fields
            }
            $0.requestModifier = RequestModifier { request in
                var request = request
                let host = request.url.host ?? ""
                signed.withLock { $0.append(host) }
                request.headerFields[HTTPField.Name("X-Signature")!] = "signed:" + host
                return request
            }
        }, options: .handleCookies, context: ImageLoaderContext(cachedValidators: HTTPValidators(etag: "\"e\"")))
        let start = try #require(builder.request(for: first))
        let hop = try next(builder, to: "https://c.example/d.png")
        #expect(start.headerFields[.authorization] == DownloadCredential(username: "a", password: "1", hosts: []).headerValue)
        #expect(hop.headerFields[.authorization] == DownloadCredential(username: "c", password: "2", hosts: []).headerValue)
        #expect(start.headerFields[.cookie] == "a=first" && hop.headerFields[.cookie] == "c=second")
        #expect(start.headerFields[HTTPField.Name("X-Signature")!] == "signed:a.example")
        #expect(hop.headerFields[HTTPField.Name("X-Signature")!] == "signed:c.example")
        #expect(hop.headerFields[HTTPField.Name("X-Filtered")!] == "c.example" && hop.headerFields[.ifNoneMatch] == "\"e\"")
        #expect(signed.withLock { $0 } == ["a.example", "a.example", "c.example"])
    }

    @Test("the redirect handler sees the next request and may change it or stop; a modifier's nil refuses the hop")
    func redirectHandler() throws {
        let changing = builder(context: ImageLoaderContext(redirectHandler: RedirectHandler { response, next in
            var next = next
            next.headerFields[HTTPField.Name("X-From")!] = "\(response.statusCode) \(response.url.path)"
            return next
        }))
        #expect(try next(changing, to: "https://c.example/d.png").headerFields[HTTPField.Name("X-From")!] == "302 /img.png")
        let stopping = builder { $0.redirectHandler = RedirectHandler { _, _ in nil } }
        let previous = try #require(stopping.request(for: first))
        guard case .stop = stopping.redirect(moved, from: previous, to: URL(string: "https://c.example/")!, method: .get, first: first) else {
            Issue.record("not stopped"); return
        }
        let refusing = builder { $0.requestModifier = RequestModifier { $0.url.host == "c.example" ? nil : $0 } }
        guard case .refused = refusing.redirect(moved, from: previous, to: URL(string: "https://c.example/")!, method: .get, first: first) else {
            Issue.record("not refused"); return
        }
    }
}
