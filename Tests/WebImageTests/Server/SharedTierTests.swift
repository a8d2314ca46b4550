import Foundation
import Testing
@testable import WebImageServer
import WebImageRedis

/// Two instances of the server sharing one real redis-server (`WEBIMAGE_REDIS_URL`), as a fleet's
/// do: sources and variants go through Redis, purges reach every instance, and a Redis that stops
/// never fails a request.
@Suite("webimage serve: the shared Redis tier", .redisInstalled)
struct SharedTierTests {
    @Test("a source one instance fetched makes another instance's new variant from Redis, with no second origin fetch; a purge on one makes both fetch again")
    func sharedSourcesAndPurge() async throws {
        try await withRedisServer { redis in
            let redisURL = redis.url
            // The product's 250 ms call timeout is about speed; these specs are about where bytes come from.
            let patient = Duration.seconds(2) * TestTiming.scale
            try await withImageServer({ $0.redisURL = redisURL; $0.redisCallTimeout = patient; $0.purgeToken = "t" }) { a in
                a.origin.route("/s.png", .fixture("png-rgb.png"))
                let source = "127.0.0.1:\(a.origin.port)/s.png"
                try await withImageServer({ $0.redisURL = redisURL; $0.redisCallTimeout = patient; $0.purgeToken = "t" }) { b in
                    #expect(try await a.get("/unsafe/20x10/\(source)").status == 200)
                    #expect(a.origin.requestCount("/s.png") == 1)
                    // The manager's store into Redis may end after A's answer: wait until the bytes are there.
                    let client = try makeRedisClient(redis)
                    let key = RedisImageCache(client: client, namespace: "sources").redisKey(for: "http://\(source)")
                    #expect(await eventuallyAsync { (try? await client.exists(key)) == true })
                    let fromRedis = try await b.get("/unsafe/8x8/\(source)")
                    #expect(fromRedis.status == 200)
                    #expect(a.origin.requestCount("/s.png") == 1, "B made its variant from the bytes in Redis")

                    let purged = try await a.delete("/purge?url=http://\(source)", headers: [("Authorization", "Bearer t")])
                    #expect(purged.status == 200)
                    // B hears the purge on the channel and drops its own copies; then its variant is made anew.
                    #expect(await eventuallyAsync {
                        _ = try? await b.get("/unsafe/8x8/\(source)")
                        return a.origin.requestCount("/s.png") >= 2
                    })
                    #expect(try await a.get("/unsafe/20x10/\(source)").status == 200)
                    #expect(a.origin.requestCount("/s.png") == 2, "A refetched nothing: B's fetch refilled Redis")
                    await client.shutdown()
                }
            }
        }
    }

    @Test("Redis stopped: every request is still answered, each within the tier's timeout plus the work")
    func redisDown() async throws {
        try await withRedisServer { redis in
            let redisURL = redis.url
            try await withImageServer({ $0.redisURL = redisURL }) { server in
                for index in 0..<6 { server.origin.route("/d\(index).png", .fixture("png-rgb.png")) }
                #expect(try await server.get("/unsafe/10x10/ORIGIN/d0.png").status == 200)
                await redis.stop()
                for index in 1..<6 {
                    let started = ContinuousClock.now
                    #expect(try await server.get("/unsafe/10x10/ORIGIN/d\(index).png").status == 200)
                    #expect(ContinuousClock.now - started < .seconds(5) * TestTiming.scale)
                }
                let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
                #expect(metrics.contains("webimage_redis_calls_total{result=\"skipped\"}") || metrics.contains("webimage_redis_calls_total{result=\"error\"}"))
            }
        }
    }
}
