import Foundation
import Testing
@testable import WebImage

/// The loaders read a URL's scheme off its text (`URL.hasScheme`); it must agree with `URL.scheme`.
@Suite("URL scheme checks")
struct URLSchemeTests {
    @Test("agrees with URL.scheme, in any case, for absolute, relative-to-base, file and scheme-less URLs")
    func agreesWithFoundation() throws {
        let base = try #require(URL(string: "HTTPS://example.com/dir/"))
        let urls = [
            URL(string: "http://a/b.png"), URL(string: "HtTp://a/b.png"), URL(string: "https://a"),
            URL(string: "data:image/png;base64,AAAA"), URL(string: "DATA:,x"), URL(string: "ftp://a/b"),
            URL(string: "b.png", relativeTo: base), URL(fileURLWithPath: "/tmp/a.png"), URL(string: "/tmp/a.png"),
            URL(string: "httpx://a"), URL(string: "http+unix://a"), URL(string: "a:b"),
        ].compactMap { $0 }
        #expect(urls.count == 12)
        for url in urls {
            let scheme = url.scheme?.lowercased()
            #expect(url.hasHTTPScheme == (scheme == "http" || scheme == "https"), "\(url)")
            #expect(url.hasScheme("data") == (scheme == "data"), "\(url)")
            #expect(url.hasScheme("file") == (scheme == "file"), "\(url)")
            #expect(url.hasAnyScheme == (scheme != nil), "\(url)")
        }
    }
}
