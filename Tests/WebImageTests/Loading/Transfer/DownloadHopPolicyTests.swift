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

    @Test("a pinned hop connects to its address and keeps the host's name in Host; no lookup of the name happens; the policy keeps the carrier the config names", arguments: DownloaderConfig.Transport.carriers)
    func pinnedHop(_ transport: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: transport, { $0.hopPolicy = RecordingHopPolicy() }) { origin, downloader in
            #expect((downloader.http1 != nil) == (transport == .http1))
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

    @Test("a redirect naming two Locations goes to the first, whichever client carries it", arguments: DownloaderConfig.Transport.carriers)
    func firstLocation(_ transport: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: transport) { origin, downloader in
            origin.route("/two", .body(.zeros(0), status: 302, contentType: nil, headers: [("Location", "/x.png"), ("Location", "/y.png")]))
            origin.route("/x.png", .fixture("png-rgb.png"))
            origin.route("/y.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/two"))
            #expect(origin.requestCount("/x.png") == 1 && origin.requestCount("/y.png") == 0)
        }
    }

    @Test("connections are pooled per origin, pinned address and certificate check: a connection to one address never carries a request pinned to another")
    func poolKeys() throws {
        let origin = try #require(Origin(URL(string: "https://images.example/a.png")!))
        func route(_ address: String?, checked: Bool = true) -> HTTP1Transport.Route {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return HTTP1Transport.Route(HTTP1Transport.PoolKey(origin, address: address, tlsConfiguration: checked ? nil : tls))
        }
        let (first, second, unpinned, unchecked) = (route("192.0.2.1"), route("192.0.2.2"), route(nil), route(nil, checked: false))
        #expect(Set([first.key, second.key, unpinned.key, unchecked.key]).count == 4)
        #expect(first.dialed == "192.0.2.1" && first.host == "images.example")
        #expect(unpinned.dialed == "images.example" && unpinned.verifies && !unchecked.verifies)
        // The key is the origin: every spelling of one scheme, host and port shares the connections.
        let keys = try ["http://a.example?x=/y", "HTTP://A.Example.:80/p#/q", "http://user@a.example/"].map { text in
            HTTP1Transport.PoolKey(try #require(Origin(URL(string: text)!)), address: nil, tlsConfiguration: nil)
        }
        #expect(Set(keys).count == 1 && keys[0].origin.description == "http://a.example:80")
    }
}
