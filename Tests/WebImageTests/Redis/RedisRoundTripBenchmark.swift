import Foundation
import NIOCore
import Testing
import WebImageRedis

/// Not a spec: the round-trip cost of our RESP client on NIO, for comparison with
/// `redis-benchmark` (hiredis). Off unless `WEBIMAGE_REDIS_BENCH=1`; `scripts/redis-bench` runs both.
@Suite("Redis round-trip benchmark (WEBIMAGE_REDIS_BENCH=1)",
       .enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_REDIS_BENCH"] == "1"), .serialized)
struct RedisRoundTripBenchmark {
    static let valueBytes = 30_000
    static let count = Int(ProcessInfo.processInfo.environment["WEBIMAGE_REDIS_BENCH_N"] ?? "") ?? 20_000

    @Test("GET of a 30 KB value: sequential, pipelined 16 deep (one write per 16), 16 concurrent calls over the pool")
    func getRoundTrips() async throws {
        let external = ProcessInfo.processInfo.environment["WEBIMAGE_REDIS_BENCH_URL"]
        let server = external == nil ? try await RedisTestServer() : nil
        defer { if let server { Task { await server.stop(); server.removeDirectory() } } }
        let url = try external.map { try RedisURL($0) } ?? server!.url
        let client = try RedisClient(configuration: RedisClientConfiguration(url: url, callTimeout: .seconds(5)))
        defer { Task { await client.shutdown() } }
        try await client.set("bench:30k", to: ByteBuffer(repeating: 120, count: Self.valueBytes))
        for _ in 0..<500 { _ = try await client.get("bench:30k") }  // warm up: connections, allocator

        let clock = ContinuousClock()
        let sequential = try await clock.measure {
            for _ in 0..<Self.count { _ = try await client.get("bench:30k") }
        }
        let batch = Array(repeating: RedisCommand("GET", "bench:30k"), count: 16)
        let pipelined = try await clock.measure {
            for _ in 0..<(Self.count / 16) { _ = try await client.pipeline(batch) }
        }
        let concurrent = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask { for _ in 0..<(Self.count / 16) { _ = try await client.get("bench:30k") } }
                }
                try await group.waitForAll()
            }
        }
        for (name, elapsed) in [("sequential", sequential), ("pipelined-16", pipelined), ("concurrent-16", concurrent)] {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let perSecond = Double(Self.count) / seconds
            print(String(format: "webimage-redis GET 30KB %@: %.0f requests/s, %.1f us/request", name, perSecond, 1e6 / perSecond))
        }
    }
}
