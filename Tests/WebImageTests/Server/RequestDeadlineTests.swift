import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// A source that never ends within any deadline: a megabyte at 300 bytes a second, each piece
/// well inside the idle timeout.
private let endless = OriginResponse.drip(.zeros(1 << 20), bytesPerSecond: 300, chunkSize: 64, contentType: "image/jpeg")

@Suite("webimage serve: one deadline per request cancels its work and frees what it held")
struct RequestDeadlineTests {
    @Test("a source that drips a byte before each idle timeout ends at the source deadline (504), and holds nothing after")
    func sourceDeadline() async throws {
        try await withImageServer({ configuration in
            configuration.sourceDeadline = 1
            configuration.requestDeadline = .seconds(60)
        }) { harness in
            harness.origin.route("/drip.jpg", endless)
            let started = ContinuousClock.now
            let reply = try await harness.get(harness.unsafe("20x20", "/drip.jpg"))
            #expect(reply.status == 504)
            #expect(ContinuousClock.now - started < .seconds(30), "the source deadline, not the request's, ended it")
            #expect(harness.server.admission.counts.running == 0)
        }
    }

    @Test("two dripping sources past the request deadline answer 504 and leave every slot free: ordinary requests meanwhile and after answer 200")
    func drippingSourceFreesItsSlot() async throws {
        try await withImageServer({ configuration in
            configuration.concurrency = 1
            // Long enough for the ordinary request's own work on a slow (ThreadSanitizer) run.
            configuration.requestDeadline = .seconds(TestTiming.seconds(3))
        }) { harness in
            harness.origin.route("/drip-a.jpg", endless)
            harness.origin.route("/drip-b.jpg", endless)
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            async let first = harness.get(harness.unsafe("20x20", "/drip-a.jpg"))
            async let second = harness.get(harness.unsafe("20x20", "/drip-b.jpg"))
            // While both drip, the one work slot is free: a download holds none.
            let meanwhile = try await harness.get(harness.unsafe("10x10", "/a.jpg"))
            #expect(meanwhile.status == 200)
            let (a, b) = try await (first, second)
            #expect(a.status == 504 && b.status == 504)
            let after = try await harness.get(harness.unsafe("12x12", "/a.jpg"))
            #expect(after.status == 200)
            // The work behind the 504s was cancelled, not left running for the cache: nothing holds a slot.
            #expect(await eventually { harness.server.admission.counts == (0, 0, 0) })
        }
    }

    @Test("the same URL with Accept spellings that negotiate alike is made once and then answered from the result cache")
    func acceptSpellingsShareOneVariant() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            var tags: Set<String> = []
            for q in 501...505 {
                let reply = try await harness.get(harness.unsafe("16x16", "/a.jpg"), headers: [("Accept", "image/webp;q=0.\(q), */*;q=0.1")])
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/webp")
                tags.insert(reply.header("ETag") ?? "")
            }
            #expect(tags.count == 1)
            #expect(harness.server.metrics.text.contains("result\"} 4"), "four of five answered by the result cache")
        }
    }
}
