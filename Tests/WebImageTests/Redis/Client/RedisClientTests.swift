import NIOCore
import NIOSSL
import Synchronization
import Testing
import WebImageRedis

@Suite("RedisClient against a real redis-server: pipelining, login, reconnect, timeouts, breaker", .redisInstalled)
struct RedisClientTests {
    @Test("GET/SET with a TTL (PX), DEL, EXISTS, SADD/SMEMBERS, PEXPIRE; GET counts hits and misses")
    func commands() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server)
            defer { Task { await client.shutdown() } }
            try await client.set("k", to: ByteBuffer(string: "v"), expiresIn: .seconds(60))
            #expect(try await client.get("k") == ByteBuffer(string: "v"))
            #expect(try await client.get("absent") == nil)
            let ttl = try await client.send(RedisCommand("PTTL", "k")).integer ?? -1
            #expect(ttl > 0 && ttl <= 60_000)
            #expect(try await client.exists("k"))
            #expect(try await client.del(["k", "absent"]) == 1)
            #expect(try await !client.exists("k"))
            #expect(try await client.sadd("s", members: ["a", "b", "a"]) == 2)
            #expect(try await Set(client.smembers("s")) == ["a", "b"])
            #expect(try await client.expire("s", in: .seconds(30)))
            #expect(try await !client.expire("nothing", in: .seconds(30)))
            #expect(client.stats.hits == 1 && client.stats.misses == 1)
            #expect(client.stats.errors == 0 && client.stats.timeouts == 0)
        }
    }

    @Test("an error reply throws .server with Redis's message and does not count toward the breaker")
    func errorReply() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server, failureThreshold: 1)
            defer { Task { await client.shutdown() } }
            try await client.sadd("set", members: ["x"])
            await #expect(throws: RedisError.server("WRONGTYPE Operation against a key holding the wrong kind of value")) {
                try await client.get("set")
            }
            #expect(client.breaker.state == .closed)
            #expect(client.stats.errors == 1)
        }
    }

    @Test("1,000 commands pipelined in one write come back in order; 1,000 concurrent GETs over the pool each get their own value")
    func pipelining() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server, callTimeout: .seconds(5))
            defer { Task { await client.shutdown() } }
            let sets = (0..<1000).map { RedisCommand("SET", "key:\($0)", "value:\($0)") }
            let setReplies = try await client.pipeline(sets)
            #expect(setReplies == Array(repeating: .simpleString("OK"), count: 1000))
            let gets = (0..<1000).map { RedisCommand("GET", "key:\($0)") }
            let values = try await client.pipeline(gets).map(\.string)
            #expect(values == (0..<1000).map { "value:\($0)" })

            let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<1000 {
                    group.addTask { try await client.get("key:\(index)") == ByteBuffer(string: "value:\(index)") ? 0 : 1 }
                }
                return try await group.reduce(0, +)
            }
            #expect(mismatches == 0)
        }
    }

    @Test("AUTH with requirepass (and an ACL user), SELECT of the URL's database; a wrong password fails the connect")
    func login() async throws {
        try await withRedisServer(["--requirepass", "s3cret", "--user", "cache", "on", ">wonder", "~*", "&*", "+@all"]) { server in
            let right = try makeRedisClient(server, url: RedisURL(host: "127.0.0.1", port: server.port, password: "s3cret", database: 3))
            let user = try makeRedisClient(server, url: RedisURL(host: "127.0.0.1", port: server.port, user: "cache", password: "wonder"))
            let wrong = try makeRedisClient(server, url: RedisURL(host: "127.0.0.1", port: server.port, password: "nope"))
            let none = try makeRedisClient(server)
            defer { Task { for client in [right, user, wrong, none] { await client.shutdown() } } }

            try await right.set("in-db-3", to: ByteBuffer(string: "x"))
            #expect(try await right.get("in-db-3") == ByteBuffer(string: "x"))
            #expect(try await user.get("in-db-3") == nil)  // database 0
            try await user.set("in-db-0", to: ByteBuffer(string: "y"))
            let refused = await #expect(throws: RedisError.self) { try await wrong.get("in-db-0") }
            guard case .connectionFailed(let why) = refused else { Issue.record("\(String(describing: refused))"); return }
            #expect(why.contains("AUTH refused") && !why.contains("nope"))
            let anonymous = await #expect(throws: RedisError.self) { try await none.get("in-db-0") }
            guard case .server(let message) = anonymous else { Issue.record("\(String(describing: anonymous))"); return }
            #expect(message.hasPrefix("NOAUTH"))
        }
    }

    @Test("after the server restarts on the same port, calls fail fast while it is down and work again once it is back")
    func reconnect() async throws {
        try await withRedisServer { server in
            let client = try makeRedisClient(server, cooldown: .milliseconds(100))
            defer { Task { await client.shutdown() } }
            try await client.set("before", to: ByteBuffer(string: "1"))
            await server.stop()
            await #expect(throws: RedisError.self) { try await client.get("before") }
            try await server.start()
            let back = await eventuallyAsync { (try? await client.set("after", to: ByteBuffer(string: "2"))) != nil }
            #expect(back)
            #expect(try await client.get("after") == ByteBuffer(string: "2"))
            #expect(client.breaker.state == .closed)
        }
    }

    @Test("a SIGSTOPped server fails each call within the timeout, opens the breaker (then calls are skipped at once); after SIGCONT the probe closes it")
    func stoppedServer() async throws {
        try await withRedisServer { server in
            let timeout = Duration.milliseconds(250) * TestTiming.scale
            let client = try makeRedisClient(server, callTimeout: .milliseconds(250), failureThreshold: 3, cooldown: .milliseconds(500))
            defer { Task { await client.shutdown() } }
            // Written by a client with the specs' patient timeout: on loaded cores a 250 ms call can miss even a healthy server.
            let setup = try makeRedisClient(server)
            try await setup.set("k", to: ByteBuffer(string: "v"))
            await setup.shutdown()
            server.pause()
            defer { server.resume() }
            let clock = ContinuousClock()
            for _ in 0..<3 {
                let elapsed = await clock.measure {
                    await #expect(throws: RedisError.timeout) { try await client.get("k") }
                }
                // Generous margin: two loaded cores; the point is "bounded", not "fast".
                #expect(elapsed < timeout + .seconds(2) * TestTiming.scale)
            }
            #expect(client.breaker.state == .open)
            // Skipped without a call (no timeout counted): the error says so, however busy the machine.
            await #expect(throws: RedisError.circuitOpen) { try await client.get("k") }
            #expect(client.stats.timeouts == 3 && client.stats.skipped >= 1)

            server.resume()
            let answered = await eventuallyAsync { (try? await client.get("k")) == ByteBuffer(string: "v") }
            #expect(answered)
            #expect(client.breaker.state == .closed)
        }
    }

    @Test("a reply over the bulk cap fails that call as a protocol violation; the next call gets a fresh connection")
    func oversizedReply() async throws {
        try await withRedisServer { server in
            let client = try RedisClient(configuration: RedisClientConfiguration(
                url: server.url, poolSize: 1, callTimeout: .seconds(5) * TestTiming.scale, connectTimeout: specConnectTimeout,
                limits: RESPLimits(maxBulkLength: 1024)))
            defer { Task { await client.shutdown() } }
            try await client.set("big", to: ByteBuffer(repeating: 7, count: 4096))
            try await client.set("small", to: ByteBuffer(string: "ok"))
            let error = await #expect(throws: RedisError.self) { try await client.get("big") }
            guard case .protocolViolation = error else { Issue.record("\(String(describing: error))"); return }
            #expect(try await client.get("small") == ByteBuffer(string: "ok"))
        }
    }

    @Test("pub/sub across two clients: messages arrive in order; the subscription comes back after a server restart")
    func pubSub() async throws {
        try await withRedisServer { server in
            let subscriber = try makeRedisClient(server)
            let publisher = try makeRedisClient(server, cooldown: .milliseconds(100))
            defer { Task { await subscriber.shutdown(); await publisher.shutdown() } }
            let received = Mutex<[String]>([])
            let messages = subscriber.subscribe(channel: "news")
            let listener = Task {
                for await message in messages { received.withLock { $0.append(message.string) } }
            }
            defer { listener.cancel() }
            #expect(await subscribed(publisher, to: "news"))
            for text in ["one", "two", "three"] { try await publisher.publish(text, to: "news") }
            #expect(await eventually { received.withLock { $0 } == ["one", "two", "three"] })

            await server.stop()
            try await server.start()
            #expect(await subscribed(publisher, to: "news"))
            try await publisher.publish("four", to: "news")
            #expect(await eventually { received.withLock { $0.last } == "four" })
        }
    }
}

/// Polls `PUBSUB NUMSUB channel` until someone listens (a message published before that is lost).
func subscribed(_ client: RedisClient, to channel: String) async -> Bool {
    await eventuallyAsync {
        guard let reply = try? await client.send(RedisCommand("PUBSUB", "NUMSUB", channel)) else { return false }
        return (reply.array?.last?.integer ?? 0) > 0
    }
}

@Suite("RedisClient over rediss:// (a TLS-only redis-server)", .redisInstalled)
struct RedisTLSTests {
    @Test("rediss:// with the server's certificate trusted works; with the system's trust roots the connect fails as connectionFailed")
    func tls() async throws {
        let server = try await RedisTestServer(tls: true)
        defer { Task { await server.stop(); server.removeDirectory() } }
        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .file(try SelfSignedCertificate.certificatePath())
        let client = try RedisClient(configuration: RedisClientConfiguration(
            url: server.url, callTimeout: .seconds(10) * TestTiming.scale, connectTimeout: specConnectTimeout, tls: trusting))
        // Generous: the first handshake with the system's trust roots loads the whole CA bundle.
        let stranger = try RedisClient(configuration: RedisClientConfiguration(
            url: server.url, callTimeout: .seconds(10) * TestTiming.scale, connectTimeout: .seconds(10) * TestTiming.scale))
        defer { Task { await client.shutdown(); await stranger.shutdown() } }
        #expect(server.url.description.hasPrefix("rediss://"))
        try await client.set("secret", to: ByteBuffer(string: "over tls"))
        #expect(try await client.get("secret") == ByteBuffer(string: "over tls"))
        let refused = await #expect(throws: RedisError.self) { try await stranger.get("secret") }
        guard case .connectionFailed = refused else { Issue.record("\(String(describing: refused))"); return }
    }
}
