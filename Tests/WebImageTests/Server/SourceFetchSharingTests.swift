import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// One origin fetch per source, however the variants of it arrive: one asked while the first
/// fetch is at the origin joins it (the manager's shared load); one asked while its bytes are
/// still being written reads them after the write (the disk queue orders a read after a store
/// asked for before it), so no request waits for the source's disk write and none fetches twice.
@Suite("webimage serve: one fetch per source")
struct SourceFetchSharingTests {
    @Test("a variant asked while its source's store waits for a busy disk finds the bytes once written: one origin fetch, both 200")
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
            // The first load is over (its store queued, not awaited): the second variant starts a load of its own.
            #expect(await eventually { server.manager.sharedLoads.count == 0 }, "the load did not wait for the disk write")
            let second = Task { try await harness.get(harness.unsafe("8x8", "/s.png")).status }
            #expect(await eventually { server.manager.sharedLoads.count == 1 }, "the second variant's load waits on the disk")
            cache.ioQueue.resume()
            #expect(try await first.value == 200)
            #expect(try await second.value == 200)
            #expect(harness.origin.requestCount("/s.png") == 1)
            // Asked after the store landed: found on disk.
            #expect(try await harness.get(harness.unsafe("4x4", "/s.png")).status == 200)
            #expect(harness.origin.requestCount("/s.png") == 1)
        }
    }

    @Test("two variants asked while the source is at the origin share one fetch")
    func variantDuringFetch() async throws {
        try await withImageServer { harness async throws in
            let gate = OriginGate()
            defer { gate.open() }
            harness.origin.route("/t.png", .gated(gate, .fixture("png-rgb.png")))
            let server = harness.server
            let joinedBefore = server.manager.sharedLoads.joined
            let first = Task { try await harness.get(harness.unsafe("20x10", "/t.png")).status }
            #expect(await eventually { harness.origin.inFlightRequests == 1 })
            let second = Task { try await harness.get(harness.unsafe("8x8", "/t.png")).status }
            #expect(await eventually { server.manager.sharedLoads.joined == joinedBefore + 1 }, "the second variant joined the fetch")
            gate.open()
            #expect(try await first.value == 200)
            #expect(try await second.value == 200)
            #expect(harness.origin.requestCount("/t.png") == 1)
        }
    }
}
