import Testing
@testable import WebImage

@Suite("WebImageError")
struct WebImageErrorTests {
    @Test("codes are SDWebImage's")
    func codes() {
        #expect(WebImageError.invalidURL("x").code == 1000)
        #expect(WebImageError.badImageData(reason: "x").code == 1001)
        #expect(WebImageError.cacheNotModified.code == 1002)
        #expect(WebImageError.blackListed.code == 1003)
        #expect(WebImageError.invalidDownloadOperation(reason: "x").code == 2000)
        #expect(WebImageError.invalidDownloadStatusCode(404).code == 2001)
        #expect(WebImageError.cancelled.code == 2002)
        #expect(WebImageError.invalidDownloadResponse(reason: "x").code == 2003)
        #expect(WebImageError.invalidDownloadContentType("text/html").code == 2004)
        #expect(WebImageError.transport(.timedOut(.read)).code == -1001)
        #expect(WebImageError.invalidDownloadStatusCode(503).statusCode == 503)
    }

    @Test("transient failures are never blocked; bad URLs, bad data and hard transport failures are")
    func blocklistRule() {
        let transient: [WebImageError] = [
            .cancelled, .transport(.timedOut(.connect)), .transport(.timedOut(.read)), .transport(.timedOut(.resource)),
            .transport(.dnsLookupFailed(host: "h")), .transport(.cannotConnect(host: "h", reason: "refused")),
            .transport(.connectionLost(reason: "reset")),
        ]
        for error in transient {
            #expect(error.isTransient, "\(error)")
            #expect(!error.shouldBlockFailedURL, "\(error)")
        }
        let blocked: [WebImageError] = [
            .invalidURL("x"), .badImageData(reason: "x"), .transport(.responseTooLarge(limit: 1)),
            .transport(.redirectLoop), .transport(.tooManyRedirects(limit: 3)),
            .transport(.secureConnectionFailed(reason: "bad cert")), .transport(.fileNotFound(path: "/x")),
        ]
        for error in blocked {
            #expect(!error.isTransient, "\(error)")
            #expect(error.shouldBlockFailedURL, "\(error)")
        }
        for error: WebImageError in [.invalidDownloadStatusCode(404), .invalidDownloadContentType(nil), .cacheNotModified] {
            #expect(!error.shouldBlockFailedURL, "\(error)")
        }
    }

    @Test("descriptions are one actionable line")
    func descriptions() {
        let all: [WebImageError] = [
            .invalidURL(""), .badImageData(reason: "the image data is empty"), .cacheNotModified, .blackListed,
            .invalidDownloadOperation(reason: "the request modifier returned nil"), .invalidDownloadStatusCode(404),
            .cancelled, .invalidDownloadResponse(reason: "x"), .invalidDownloadContentType("text/html"),
            .invalidDownloadContentType(nil), .transport(.responseTooLarge(limit: 10)), .transport(.other("boom")),
        ]
        for error in all {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
        }
        #expect(WebImageError.invalidDownloadStatusCode(404).description.contains("404"))
        #expect(WebImageError.invalidDownloadContentType("text/html").description.contains("text/html"))
    }
}
