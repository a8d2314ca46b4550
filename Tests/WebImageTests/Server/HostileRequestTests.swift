import Foundation
import Synchronization
import Testing
import WebImage
@testable import WebImageServer

/// A name service whose answer changes between calls, per host: `first` on a host's first
/// lookup, `later` on every other — DNS rebinding, as a hostile name server plays it.
private func rebinding(first: String, later: String) -> SourceResolver.Lookup {
    let calls = Mutex<[String: Int]>([:])
    return { host in
        let call = calls.withLock { calls -> Int in
            calls[host, default: 0] += 1
            return calls[host]!
        }
        return [IPAddress(call == 1 ? first : later)!]
    }
}

/// What a hostile client or origin tries against `webimage serve` (issue 28): each is refused
/// with a 4xx and a plain sentence, or stays within its limit, and nothing reaches what it must not.
@Suite("webimage serve: hostile requests")
struct HostileRequestTests {
    @Test("the connection goes to the checked address whatever the host's spelling: a name answering 127.0.0.2 first and the origin's 127.0.0.1 after never reaches the origin",
          arguments: ["LOCALHOST", "localhost.", "LocalHost.", "localhost"])
    func rebindingBySpelling(_ spelling: String) async throws {
        // The system resolver answers 127.0.0.1 for every spelling: a second, unchecked resolution reaches the origin.
        try await withImageServer(lookUp: rebinding(first: "127.0.0.2", later: "127.0.0.1")) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let reply = try await harness.get("/unsafe/10x10/\(spelling):\(harness.origin.port)/a.png")
            #expect(reply.status == 502, "\(spelling): \(reply.status)")
            #expect(harness.origin.requestCount("/a.png") == 0, "\(spelling) reached the origin")
        }
    }

    @Test("a redirect's Location is pinned the same way: a respelled host in it never reaches the origin")
    func rebindingThroughARedirect() async throws {
        try await withImageServer(lookUp: rebinding(first: "127.0.0.2", later: "127.0.0.1")) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            harness.origin.route("/hop", .redirect(to: "http://LocalHost.:\(harness.origin.port)/a.png"))
            let reply = try await harness.get(harness.unsafe("10x10", "/hop"))
            #expect(reply.status == 502)
            #expect(harness.origin.requestCount("/hop") == 1)
            #expect(harness.origin.requestCount("/a.png") == 0)
        }
    }

    @Test("the checked address is the one connected to: answered 127.0.0.1 first and 127.0.0.2 after, a respelled host is served from 127.0.0.1")
    func pinnedToTheFirstAnswer() async throws {
        try await withImageServer(lookUp: rebinding(first: "127.0.0.1", later: "127.0.0.2")) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let reply = try await harness.get("/unsafe/10x10/LocalHost.:\(harness.origin.port)/a.png")
            #expect(reply.status == 200)
            #expect(harness.origin.requestCount("/a.png") == 1)
        }
    }

    @Test("hosts with NUL, control or space bytes are refused before any lookup (getaddrinfo and inet_pton would read up to the NUL)",
          arguments: ["127.0.0.1%00.example.com", "127.0.0.1%0a.example.com", "a%20b.example.com", "127.0.0.1%09"])
    func nonLDHHosts(_ host: String) async throws {
        let lookups = Mutex(0)
        try await withImageServer(lookUp: { _ in lookups.withLock { $0 += 1 }; return [IPAddress("127.0.0.1")!] }) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let reply = try await harness.get("/unsafe/10x10/\(host):\(harness.origin.port)/a.png")
            #expect((400..<500).contains(reply.status), "\(host): \(reply.status)")
            #expect(harness.origin.requestCount("/a.png") == 0)
        }
        #expect(lookups.withLock { $0 } == 0)
    }

    @Test("a path longer than 8 KB is 414 before any work")
    func longPaths() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let long = harness.unsafe("10x10", "/a.png?" + String(repeating: "x", count: ImageServer.maxPathBytes))
            let reply = try await harness.get(long)
            #expect(reply.status == 414)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("longer than this server accepts"))
            #expect(harness.origin.requestCount("/a.png") == 0)
        }
    }

    @Test("the checked-request memo is bounded by bytes, not entries: 300 paths of 8 KB stay under its limit", .onOwnThreads)
    func memoIsBoundedByBytes() throws {
        let memo = CheckedRequests(byteLimit: 1 << 20)
        for index in 0..<300 {
            let path = "/unsafe/10x10/example.com/a.png?" + String(repeating: "x", count: 8000) + "\(index)"
            let parsed = try ThumborPath(parsing: path)
            let request = ImageServer.VariantRequest(path: parsed, source: URL(string: "http://example.com/a.png")!, output: .init(), key: path)
            memo.insert(request, forKey: path)
            #expect(memo.bytes <= memo.byteLimit)
        }
        #expect(memo.bytes > 0)
    }

    @Test("a signature verifies exactly the bytes that are parsed: signed decoded, sent encoded, it means what was signed")
    func signatureCoversWhatIsParsed() async throws {
        try await withImageServer({ $0.allowUnsafe = false; $0.securityKeys = ["key"] }) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let signed = "30x20/127.0.0.1:\(harness.origin.port)/a.png"
            let signature = try #require(URLSigner(keys: ["key"]).signature(for: signed))
            let plain = try await harness.get("/\(signature)/\(signed)")
            #expect(plain.status == 200)
            let encoded = try await harness.get("/\(signature)/30x20%2F127.0.0.1:\(harness.origin.port)/a.png")
            #expect(encoded.status == 200, "the decoded text was signed; it is what is parsed")
            #expect(try ImageCodersManager.shared.decode(encoded.body).pixelSize == PixelSize(width: 30, height: 20))
            // Signed with a `%2F` in it, the raw text is what was signed: its meaning is the raw parse's.
            let rawSigned = "30x20%2F127.0.0.1:\(harness.origin.port)/a.png"
            let rawSignature = try #require(URLSigner(keys: ["key"]).signature(for: rawSigned))
            let raw = try await harness.get("/\(rawSignature)/\(rawSigned)")
            #expect(raw.status != 200, "the raw parse names the source host 30x20, which does not resolve")
        }
    }

    @Test("a connection carrying a download is never closed to make room: 300 more pinned hosts, past the pool's idle limit, leave the slow download whole")
    func busyConnectionsAreNotEvicted() async throws {
        let origin = try await TestOrigin.start()
        let gate = OriginGate()
        origin.route("/slow.png", .gated(gate, .fixture("png-rgb.png")))
        origin.route("/a.png", .fixture("png-rgb.png"))
        let resolver = SourceResolver(addressPolicy: AddressPolicy(allowsLoopback: true)) { _ in [IPAddress("127.0.0.1")!] }
        var config = DownloaderConfig()
        config.downloadTimeout = TestTiming.seconds(30)  // 300 loads on a loaded ThreadSanitizer run must not idle out
        let loader = SourceLoader(config: config, resolver: resolver)
        func load(_ host: String, _ path: String) async throws -> ImageLoaderResult {
            try await loader.load(URL(string: "http://\(host):\(origin.port)\(path)")!, options: [], context: ImageLoaderContext(), progress: nil)
        }
        // The loader's HTTP client must be shut down on every path, a failed one included.
        let slow = Task { try await load("slow.test", "/slow.png") }
        do {
            #expect(await eventually { origin.inFlightRequests == 1 })
            for index in 0..<300 { _ = try await load("h\(index).test", "/a.png") }
            gate.open()
            let result = try await slow.value
            #expect(!result.data.isEmpty)
        } catch {
            Issue.record(error)
        }
        gate.open()
        _ = try? await slow.value
        await loader.shutdown()
        await origin.shutdown()
    }
}
