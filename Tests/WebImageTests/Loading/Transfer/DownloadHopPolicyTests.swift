import Foundation
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

    @Test("connections are pooled per host and pinned address: a connection to one address never carries a request pinned to another")
    func poolKeys() throws {
        let url = URL(string: "https://images.example/a.png")!
        let first = try HTTP1Transport.Route(url, address: "192.0.2.1", tlsConfiguration: nil)
        let second = try HTTP1Transport.Route(url, address: "192.0.2.2", tlsConfiguration: nil)
        let unpinned = try HTTP1Transport.Route(url, tlsConfiguration: nil)
        #expect(Set([first.key, second.key, unpinned.key]).count == 3)
        #expect(first.dialed == "192.0.2.1" && first.host == "images.example")
        #expect(unpinned.dialed == "images.example")
    }
}
