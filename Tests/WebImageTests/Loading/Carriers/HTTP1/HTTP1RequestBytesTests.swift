import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import WebImage

/// The lean client writes each request as bytes (`DownloadRequest.http1Bytes`) and reads only the
/// responses (`HTTP1ResponseParser`); what goes on the wire, exactly.
@Suite("HTTP/1.1 requests as bytes")
struct HTTP1RequestBytesTests {
    private func wire(_ request: DownloadRequest) -> String {
        String(buffer: request.http1Bytes(allocator: ByteBufferAllocator()))
    }

    @Test("request line with the target as the URL spells it, Host with the port, the fields in order, a blank line")
    func get() throws {
        var fields: HTTPFields = [.accept: "image/*", .userAgent: "WebImage"]
        fields[.acceptLanguage] = "en"
        let request = DownloadRequest(url: try #require(URL(string: "http://example.com:8080/a%20b/c.png?x=1&y=%2F")), headerFields: fields)
        #expect(wire(request) == "GET /a%20b/c.png?x=1&y=%2F HTTP/1.1\r\nHost: example.com:8080\r\n"
            + "Accept: image/*\r\nUser-Agent: WebImage\r\nAccept-Language: en\r\n\r\n")
    }

    @Test("no path is /; an IPv6 literal keeps its brackets; a Host the request sets is the one sent")
    func hostAndTarget() throws {
        #expect(wire(DownloadRequest(url: try #require(URL(string: "http://[::1]:81")))) == "GET / HTTP/1.1\r\nHost: [::1]:81\r\n\r\n")
        let own = DownloadRequest(url: try #require(URL(string: "http://127.0.0.1/p")),
                                  headerFields: [try #require(HTTPField.Name("Host")): "images.example"])
        #expect(wire(own) == "GET /p HTTP/1.1\r\nHost: images.example\r\n\r\n")
    }

    @Test("cookies go on one Cookie line (HTTP/1.1 allows one); framing fields are dropped, and a POST says its body is empty")
    func cookiesAndFraming() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .contentLength, value: "10"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        fields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        let url = try #require(URL(string: "http://h/p"))
        #expect(wire(DownloadRequest(url: url, headerFields: fields)) == "GET /p HTTP/1.1\r\nHost: h\r\nCookie: a=1; b=2\r\n\r\n")
        #expect(wire(DownloadRequest(url: url, method: .post)) == "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
    }
}
