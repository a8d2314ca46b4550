import Foundation
import NIOCore
import NIOHTTP1
import Testing
@testable import WebImage

@Suite("Loading values: headers, validators, dates, cookies")
struct LoadingValuesTests {
    @Test("requests and responses are swift-http-types values: names compare case-insensitively, == included; round trips")
    func httpTypes() throws {
        let lower = try #require(HTTPField.Name("x-app"))
        let upper = try #require(HTTPField.Name("X-APP"))
        var request = DownloadRequest(url: URL(string: "https://example.com/a.png?x=1")!, headerFields: [lower: "1", .setCookie: "x=1"])
        request.headerFields.append(HTTPField(name: .setCookie, value: "y=2"))
        #expect(request.headerFields[upper] == "1")
        #expect(request.headerFields[values: .setCookie] == ["x=1", "y=2"])
        // HTTPHeaderFields' == compared names case-sensitively although documented otherwise.
        #expect(DownloadRequest(url: request.url, headerFields: [lower: "1"]) == DownloadRequest(url: request.url, headerFields: [upper: "1"]))

        let http = request.httpRequest
        #expect(http.method == .get && http.scheme == "https" && http.authority == "example.com" && http.path == "/a.png?x=1")
        #expect(DownloadRequest(http, timeout: request.timeout) == request)
        #expect(DownloadRequest(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/a.png")) == nil)

        let response = DownloadResponse(url: request.url, status: .notModified, headerFields: [.eTag: "\"1\""])
        #expect(response.statusCode == 304 && response.httpResponse.status == .notModified)
        #expect(DownloadResponse(response.httpResponse, url: request.url) == response)
    }

    @Test("over HTTP/1.1 the cookie fields go as one Cookie line, framing fields not at all, every other field as it is — the same for both carriers")
    func http1Fields() throws {
        var fields: HTTPFields = [.accept: "image/*"]
        fields[.cookie] = "a=1; b=2"
        fields.append(HTTPField(name: .accept, value: "*/*"))
        fields[.transferEncoding] = "chunked"
        fields[.contentLength] = "5"
        #expect(fields[values: .cookie] == ["a=1", "b=2"])  // HTTPFields splits them, as HTTP/2 sends them
        let headers = HTTPHeaders(requestFields: fields)
        #expect(headers["cookie"] == ["a=1; b=2"])
        #expect(headers["accept"] == ["image/*", "*/*"])
        #expect(!headers.contains(name: "transfer-encoding") && !headers.contains(name: "content-length"))
        #expect(HTTPFields(headers)[values: .accept] == ["image/*", "*/*"])
        // The lean carrier's bytes carry the same lines, after its request line and Host.
        let request = DownloadRequest(url: try #require(URL(string: "http://a.example/x.png")), headerFields: fields)
        let lines = String(buffer: request.http1Bytes(allocator: ByteBufferAllocator())).components(separatedBy: "\r\n")
        let sent = lines.dropFirst(2).filter { !$0.isEmpty }.map { $0.lowercased() }
        #expect(sent == headers.map { "\($0.name.lowercased()): \($0.value.lowercased())" })
    }

    @Test("loaders take a URL's scheme in any case, and only the whole name")
    func schemesInAnyCase() throws {
        let downloader = ImageDownloader(config: .default, client: .shared)
        for accepted in ["http://a.example/x.png", "HTTPS://a.example/x.png", "Http://a.example/x.png"] {
            #expect(downloader.canRequestImage(for: try #require(URL(string: accepted))), "\(accepted)")
            #expect(HTTP1Transport.handles(try #require(URL(string: accepted))), "\(accepted)")
        }
        for refused in ["httpx://a.example/x.png", "htt://a.example/x.png", "ftp://a.example/x.png", "http:///x.png"] {
            #expect(!HTTP1Transport.handles(try #require(URL(string: refused))), "\(refused)")
        }
        #expect(!downloader.canRequestImage(for: try #require(URL(string: "httpx://a.example/x.png"))))
        #expect(DataURLLoader().canRequestImage(for: try #require(URL(string: "DATA:image/png;base64,AA=="))))
        #expect(!DataURLLoader().canRequestImage(for: try #require(URL(string: "datax:image/png;base64,AA=="))))
    }

    @Test("validators from ETag, Last-Modified, max-age, Expires, no-cache")
    func validators() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let maxAge = try #require(HTTPValidators(headerFields: [.eTag: "W/\"1\"", .cacheControl: "public, max-age=300"], now: now))
        #expect(maxAge.etag == "W/\"1\"")
        #expect(maxAge.expirationDate == now.addingTimeInterval(300))
        let expires = try #require(HTTPValidators(headerFields: [.expires: "Sun, 06 Nov 1994 08:49:37 GMT"], now: now))
        #expect(expires.expirationDate == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPValidators(headerFields: [.expires: "0"], now: now)?.expirationDate == now)
        #expect(HTTPValidators(headerFields: [.cacheControl: "no-cache"], now: now)?.expirationDate == now)
        #expect(HTTPValidators(headerFields: [.contentType: "image/png"], now: now) == nil)
    }

    @Test("HTTP dates in all three forms")
    func httpDates() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("yesterday") == nil)
    }

    @Test("cookie jar: host-only, domain, path, secure, expiry")
    func cookieJar() {
        let jar = CookieJar()
        let now = Date()
        jar.store(setCookieHeaders: ["a=1", "b=2; Domain=example.com; Path=/img", "c=3; Secure", "d=4; Max-Age=0",
                                     "e=5; Domain=other.org"],
                  from: URL(string: "http://cdn.example.com/x")!, now: now)
        #expect(jar.cookieHeader(for: URL(string: "http://cdn.example.com/img/a.png")!, now: now) == "b=2; a=1")
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/img/a.png")!, now: now) == "b=2")
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/imgs")!, now: now) == nil)
        #expect(jar.cookieHeader(for: URL(string: "https://cdn.example.com/")!, now: now) == "a=1; c=3")
        #expect(jar.cookieHeader(for: URL(string: "http://other.org/")!, now: now) == nil)
        jar.store(setCookieHeaders: ["a=1; Max-Age=-1"], from: URL(string: "http://cdn.example.com/x")!, now: now)
        #expect(jar.cookieHeader(for: URL(string: "http://cdn.example.com/")!, now: now) == nil)
    }

    @Test("content-type acceptance with families")
    func contentTypes() {
        var config = DownloaderConfig()
        #expect(config.accepts(contentType: nil))
        config.acceptableContentTypes = ["image/*", "application/octet-stream"]
        #expect(config.accepts(contentType: "image/webp"))
        #expect(config.accepts(contentType: "application/octet-stream"))
        #expect(!config.accepts(contentType: "text/html"))
        #expect(!config.accepts(contentType: nil))
    }

    @Test("defaults are SDWebImage's")
    func defaults() {
        let config = DownloaderConfig.default
        #expect(config.maxConcurrentDownloads == 6)
        #expect(config.downloadTimeout == 15)
        #expect(config.executionOrder == .fifo)
        #expect(config.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(config.acceptableContentTypes == nil)
        #expect(config.minimumProgressInterval == 0)
        #expect(config.maximumResponseSize == 50 * 1024 * 1024)
        #expect(DownloaderConfig.defaultAccept == "image/webp,image/*,*/*;q=0.8")
    }
}
