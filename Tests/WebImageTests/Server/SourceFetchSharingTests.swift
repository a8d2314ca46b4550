import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// One origin fetch per source, however the variants of it arrive: a variant asked while the
/// first fetch of its source is still being stored joins that fetch (the manager's shared load
/// spans the store), and one asked after finds the bytes.
@Suite("webimage serve: one fetch per source")
struct SourceFetchSharingTests {
    @Test("a variant asked while its source's store waits for a busy disk joins that fetch: one origin fetch, both 200")
    func variantDuringStore() async throws {
        try await withImageServer { harness in
            let gate = OriginGate()
            defer { gate.open() }
            harness.origin.route("/s.png", .gated(gate, .fixture("png-rgb.png")))
            let server = harness.server
            let cache = server.sourceCache
            let key = try #require(server.manager.cacheKey(for: harness.origin.url("/s.png")))
            let first = Task { try await harness.get(harness.unsafe("20x10", "/s.png")).status }
            // Its cache query is over and its fetch is at the origin: now the disk stalls.
            #expect(await eventually { harness.origin.inFlightRequests == 1 })
            cache.ioQueue.suspend()
            gate.open()
            #expect(await eventually { cache.writeOrder.withLock { !$0.isSettled(key) } }, "the source's store waits for the disk")
            let joinedBefore = server.manager.sharedLoads.joined
            let second = Task { try await harness.get(harness.unsafe("8x8", "/s.png")).status }
            #expect(await eventually { server.manager.sharedLoads.joined == joinedBefore + 1 }, "the second variant joined the fetch being stored")
            cache.ioQueue.resume()
            #expect(try await first.value == 200)
            #expect(try await second.value == 200)
            #expect(harness.origin.requestCount("/s.png") == 1)
            // Asked after the store landed: found on disk.
            #expect(try await harness.get(harness.unsafe("4x4", "/s.png")).status == 200)
            #expect(harness.origin.requestCount("/s.png") == 1)
        }
    }
}
