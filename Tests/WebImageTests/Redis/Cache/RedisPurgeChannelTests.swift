import Synchronization
import Testing
import WebImageRedis

@Suite("RedisPurgeChannel: a purge published by one instance reaches every listening instance", .redisInstalled)
struct RedisPurgeChannelTests {
    @Test("two listeners on their own clients hear each purged source, in order; publish says how many heard it")
    func fanOut() async throws {
        try await withRedisServer { server in
            let clients = try (0..<3).map { _ in try makeRedisClient(server) }
            defer { Task { for client in clients { await client.shutdown() } } }
            let heard = Mutex<[Int: [String]]>([:])
            let listeners = (0..<2).map { index in
                RedisPurgeChannel(client: clients[index]).listen { source in
                    heard.withLock { $0[index, default: []].append(source) }
                }
            }
            defer { listeners.forEach { $0.cancel() } }
            let publisher = RedisPurgeChannel(client: clients[2])
            #expect(await eventuallyAsync {
                let reply = try? await clients[2].send(RedisCommand("PUBSUB", "NUMSUB", RedisPurgeChannel.defaultChannel))
                return reply?.array?.last?.integer == 2
            })
            #expect(await publisher.publish(source: "https://origin/a.jpg") == 2)
            #expect(await publisher.publish(source: "https://origin/b.jpg") == 2)
            let expected = ["https://origin/a.jpg", "https://origin/b.jpg"]
            #expect(await eventually { heard.withLock { $0[0] == expected && $0[1] == expected } })
        }
    }

    @Test("a publish with Redis down answers nil at once instead of failing the purge")
    func publishWithRedisDown() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            await server.stop()
            #expect(await RedisPurgeChannel(client: client).publish(source: "s") == nil)
        }
    }
}
