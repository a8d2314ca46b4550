import Foundation
import NIOSSL
import Synchronization
import Testing
@testable import WebImage

/// Records every hop it is asked about; refuses URLs whose path contains `refused`; sends hosts
/// ending in `.pinned.test` to 127.0.0.1.
private final class RecordingHopPolicy: DownloadHopPolicy {
    private let asked = Mutex<[String]>([])
    var hops: [String] { asked.withLock { $0 } }

    func allow(next url: URL) async throws(WebImageError) -> DownloadHop {
        asked.withLock { $0.append(url.path) }
        if url.path.contains("refused") { throw .invalidDownloadOperation(reason: "refused by policy") }
        if url.host?.hasSuffix(".pinned.test") == true { return DownloadHop(url: url, address: "127.0.0.1") }
        return DownloadHop(url: url)
    }
}

/// One rule set for redirects and one hook before every hop, whichever client the config names
/// (the specs take the transport as their argument).
@Suite("DownloadHopPolicy")
struct DownloadHopPolicyTests {
        @Test("the policy is asked before every hop, the first and each redirect, in order", arguments: DownloaderConfig.Transport.carriers)
    func everyHop(_ transport: DownloaderConfig.Transport) async throws {
        let policy = RecordingHopPolicy()
        try await withOrigin(over: transport, { $0.hopPolicy = policy }) { origin, downloader in
            origin.route("/a", .redirect(to: "/b", status: 301))
            origin.route("/b", .redirect(to: "/c.png", status: 307))
            origin.route("/c.png", .fixture("png-rgb.png"))
            let result = try await downloader.loadImage(with: origin.url("/a"))
            #expect(result.metrics?.redirectCount == 2)
            #expect(policy.hops == ["/a", "/b", "/c.png"])
        }
    }

    @Test("a refused redirect fails the download with the policy's error, and its target is never requested", arguments: DownloaderConfig.Transport.carriers)
    func refusedRedirect(_ transport: DownloaderConfig.Transport) async throws {
        let policy = RecordingHopPolicy()
        try await withOrigin(over: transport, { $0.hopPolicy = policy }) { origin, downloader in
            origin.route("/start", .redirect(to: "/refused.png"))
            origin.route("/refused.png", .fixture("png-rgb.png"))
            await #expect(throws: WebImageError.invalidDownloadOperation(reason: "refused by policy")) {
                _ = try await downloader.loadImage(with: origin.url("/start"))
            }
            #expect(origin.requestCount("/start") == 1)
            #expect(origin.requestCount("/refused.png") == 0)
        }
    }

    @Test("a pinned hop connects to its address and keeps the host's name in Host; no lookup of the name happens", arguments: DownloaderConfig.Transport.carriers)
    func pinnedHop(_ transport: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: transport, { $0.hopPolicy = RecordingHopPolicy() }) { origin, downloader in
            origin.route("/p.png", .fixture("png-rgb.png"))
            // `.test` never resolves (RFC 6761): only the pin can reach the origin.
            let result = try await downloader.loadImage(with: URL(string: "http://images.pinned.test:\(origin.port)/p.png")!)
            #expect(!result.data.isEmpty)
            #expect(origin.requests("/p.png").first?.header("host") == "images.pinned.test:\(origin.port)")
        }
    }

    @Test("without a policy, both clients follow the same rules: a redirect body counts against the size limit", arguments: DownloaderConfig.Transport.carriers)
    func redirectBodyLimit(_ transport: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: transport, { $0.maximumResponseSize = 50_000 }) { origin, downloader in
            origin.route("/big-redirect", .body(.zeros(200_000), status: 302, contentType: nil, headers: [("Location", "/x.png")]))
            origin.route("/x.png", .fixture("png-rgb.png"))
            await #expect(throws: WebImageError.transport(.responseTooLarge(limit: 50_000))) {
                _ = try await downloader.loadImage(with: origin.url("/big-redirect"))
            }
            #expect(origin.requestCount("/x.png") == 0)
        }
    }

    @Test("connections are pooled per origin, pinned address and certificate check: a connection to one address never carries a request pinned to another")
    func poolKeys() throws {
        let url = URL(string: "https://images.example/a.png")!
        func route(_ address: String?, checked: Bool = true) throws -> HTTP1Transport.Route {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            let configuration = checked ? nil : tls
            let key = try #require(HTTP1Transport.Route.key(for: url, address: address, tlsConfiguration: configuration))
            return try HTTP1Transport.Route(url, key: key, address: address, tlsConfiguration: configuration)
        }
        let (first, second, unpinned, unchecked) = (try route("192.0.2.1"), try route("192.0.2.2"), try route(nil), try route(nil, checked: false))
        #expect(Set([first.key, second.key, unpinned.key, unchecked.key]).count == 4)
        #expect(first.dialed == "192.0.2.1" && first.host == "images.example")
        #expect(unpinned.dialed == "images.example")
        // The key is the URL's own `scheme://authority`: a query or fragment right after it is not part of it.
        #expect(HTTP1Transport.Route.key(for: URL(string: "http://a.example?x=/y")!, address: nil, tlsConfiguration: nil) == "http://a.example")
        #expect(HTTP1Transport.Route.key(for: URL(string: "http://a.example:8080/p#/q")!, address: nil, tlsConfiguration: nil) == "http://a.example:8080")
    }
}
