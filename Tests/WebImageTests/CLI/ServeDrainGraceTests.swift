import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

extension ServeCommandTests {
    @Test("SIGTERM with --drain-grace: /readyz is 503 at once, images are still served during the grace, then the process exits 0")
    func readinessGoesFirst() async throws {
        try await withOriginAndFolder { origin, directory in
            origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            // Long, so the checks inside it hold even while the suite's other specs hold this one up.
            let grace = TestTiming.seconds(20)
            let (process, port, _) = try await startServe(
                ["--allow-unsafe", "--allow-loopback-sources", "--cache-dir", directory.path, "--drain-grace", "\(grace)"])
            defer { if process.isRunning { process.terminate() } }
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            func status(_ path: String) async throws -> Int {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: Self.answerTimeout)
                _ = try await response.body.collect(upTo: 16 * 1024 * 1024)
                return Int(response.status.code)
            }
            #expect(try await status("/readyz") == 200)
            let signalled = ContinuousClock.now
            kill(process.processIdentifier, SIGTERM)
            var readyz = 200
            while readyz == 200, ContinuousClock.now - signalled < .seconds(grace) { readyz = try await status("/readyz") }
            #expect(readyz == 503)
            #expect(ContinuousClock.now - signalled < .seconds(grace / 2), "readiness went off \(ContinuousClock.now - signalled) after SIGTERM")
            // A new variant (made, not a cache hit) while the load balancer moves on.
            #expect(try await status("/unsafe/12x0/127.0.0.1:\(origin.port)/a.jpg") == 200)
            #expect(ContinuousClock.now - signalled < .seconds(grace), "the image request should have come within the grace")
            #expect(process.isRunning)
            #expect(await eventually { !process.isRunning })
            #expect(ContinuousClock.now - signalled >= .seconds(grace * 0.9), "exited before the grace was over")
            #expect(process.terminationReason == .exit && process.terminationStatus == 0)
            try await client.shutdown()
        }
    }
}
