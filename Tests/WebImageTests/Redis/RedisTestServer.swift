import Foundation
import NIOSSL
import Synchronization
import Testing
import WebImageRedis

/// A real `redis-server` on a free loopback port, for the Redis specs: no persistence, its
/// directory a fresh temporary one, stopped with SIGTERM at the end.
final class RedisTestServer: Sendable {
    static let executable = "/usr/bin/redis-server"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    private let chosenPort = Mutex(0)
    var port: Int { chosenPort.withLock { $0 } }
    let arguments: [String]
    let directory: URL
    /// The running redis-server's process id (0 when stopped).
    private let process = Mutex<pid_t>(0)

    /// Set for a TLS-only server: the client context that trusts its self-signed certificate.
    let clientTLS: NIOSSLContext?

    /// `extraArguments`: more redis-server options, e.g. `["--requirepass", "s3cret"]`. With
    /// `tls`, the port speaks only TLS, with ``SelfSignedCertificate``'s key and certificate.
    init(extraArguments: [String] = [], tls: Bool = false) async throws {
        arguments = extraArguments
        if tls {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(try SelfSignedCertificate.certificatePath())
            clientTLS = try NIOSSLContext(configuration: configuration)
        } else {
            clientTLS = nil
        }
        directory = try TemporaryFolder.make("redis")
        // A port free a moment ago can be taken before redis binds it (the suite runs in parallel): try another.
        for attempt in 1...5 {
            chosenPort.withLock { $0 = Self.freePort() }
            do {
                try await start()
                return
            } catch RedisTestServerError.exited(let log) where log.contains("Address already in use") && attempt < 5 {
                continue
            } catch {
                removeDirectory()
                throw error
            }
        }
    }

    var url: RedisURL { RedisURL(host: "127.0.0.1", port: port, usesTLS: clientTLS != nil) }

    var pid: pid_t { process.withLock { $0 } }

    /// Starts redis-server on ``port`` and waits until it answers.
    func start() async throws {
        var ports = ["--port", String(port)]
        if clientTLS != nil {
            let files = try SelfSignedCertificate.pemPaths()
            ports = ["--port", "0", "--tls-port", String(port), "--tls-cert-file", files.certificate,
                     "--tls-key-file", files.key, "--tls-auth-clients", "no"]
        }
        let pid = try Self.spawn([Self.executable] + ports + ["--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no", "--dir", directory.path, "--daemonize", "no",
                                  "--logfile", directory.appendingPathComponent("redis.log").path] + arguments)
        process.withLock { $0 = pid }
        // A safety net only: our own PING can wait behind the suite's CPU-heavy specs for a minute.
        let deadline = ContinuousClock.now + .seconds(180) * TestTiming.scale
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                process.withLock { $0 = 0 }
                throw RedisTestServerError.exited(log: log)
            }
            // Our own log must say so: a PING alone could be answered by another spec's server that
            // took the port first (then this one exits with "Address already in use").
            if log.contains("Ready to accept connections"), await answersPing() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        await stop()
        throw RedisTestServerError.didNotStart(port: port, log: log)
    }

    /// The end of redis-server's log, for failure messages.
    private var log: String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(1500))
    }

    /// Whether something on ``port`` answers PING (a `NOAUTH` error counts: the server is up).
    func answersPing() async -> Bool {
        // A server not listening yet refuses at once; one that is may be slow to accept on a loaded machine.
        guard let connection = try? await RedisConnection.connect(
            to: url, tls: clientTLS, timeout: .nanoseconds(Int64(specConnectTimeout / .nanoseconds(1)))).get()
        else { return false }
        defer { _ = connection.close() }
        return (try? await connection.send(RedisCommand("PING")).get()) != nil
    }

    /// SIGTERM, and waits for the process to exit (the port is free again afterwards).
    func stop() async {
        let pid = process.withLock { pid -> pid_t in defer { pid = 0 }; return pid }
        guard pid > 0 else { return }
        kill(pid, SIGCONT)  // a stopped process would not act on SIGTERM
        kill(pid, SIGTERM)
        _ = try? await onOwnThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    /// SIGSTOP: the kernel still accepts connections and bytes, nothing answers.
    func pause() { kill(pid, SIGSTOP) }

    /// SIGCONT.
    func resume() { kill(pid, SIGCONT) }

    func removeDirectory() { try? FileManager.default.removeItem(at: directory) }

    /// posix_spawn with an empty signal mask and default dispositions: the test process blocks
    /// SIGTERM (and Foundation's Process passes its mask on), so a child it starts would ignore SIGTERM.
    private static func spawn(_ argv: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, environ)
        guard status == 0 else { throw RedisTestServerError.spawnFailed(errno: status) }
        return pid
    }

    /// A port that could be bound just now, below Linux's ephemeral range (32768-60999), so the
    /// suite's own outgoing connections never hold it; redis-server --port 0 would turn TCP off.
    private static func freePort() -> Int {
        while true {
            let port = Int.random(in: 20_000..<32_000)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(descriptor)
            if bound == 0 { return port }
        }
    }
}

enum RedisTestServerError: Error, CustomStringConvertible {
    case didNotStart(port: Int, log: String)
    case exited(log: String)
    case spawnFailed(errno: Int32)
    var description: String {
        switch self {
        case .didNotStart(let port, let log): "redis-server did not answer on port \(port): \(log)"
        case .exited(let log): "redis-server exited at start: \(log)"
        case .spawnFailed(let code): "could not start redis-server: \(String(cString: strerror(code)))"
        }
    }
}

/// Runs `body` with a fresh redis-server, stopped and removed afterwards even when `body` throws.
func withRedisServer<T>(
    _ extraArguments: [String] = [], _ body: (RedisTestServer) async throws -> T
) async throws -> T {
    let server = try await RedisTestServer(extraArguments: extraArguments)
    do {
        let result = try await body(server)
        await server.stop()
        server.removeDirectory()
        return result
    } catch {
        await server.stop()
        server.removeDirectory()
        throw error
    }
}

/// A client for `server` with the test's settings; shut down by the caller. The call timeout is
/// 10 s unless a spec is about timeouts: 250 ms is the product's default, but on two cores loaded
/// by the whole suite a healthy Redis missed even 2 s (CI, once), and these specs are about what
/// the tier does, not how fast.
func makeRedisClient(
    _ server: RedisTestServer, url: RedisURL? = nil, callTimeout: Duration = .seconds(10),
    failureThreshold: Int = 3, cooldown: Duration = .seconds(5)
) throws -> RedisClient {
    try RedisClient(configuration: RedisClientConfiguration(
        url: url ?? server.url, callTimeout: callTimeout * TestTiming.scale, connectTimeout: specConnectTimeout,
        failureThreshold: failureThreshold, cooldown: cooldown))
}

/// The connect timeout of spec clients: the product's 1 s, stretched for loaded and ThreadSanitizer runs
/// (a whole TSan suite once took longer than 1 s to connect on loopback).
var specConnectTimeout: Duration { .seconds(5) * TestTiming.scale
}

extension Trait where Self == ConditionTrait {
    /// Runs only where redis-server is installed (`scripts/bootstrap tests` installs it).
    static var redisInstalled: ConditionTrait {
        .enabled(if: RedisTestServer.isAvailable, "redis-server is not installed (scripts/bootstrap tests)")
    }
}

/// Polls the async `condition` every 20 ms until it holds or `timeout` (stretched by
/// ``TestTiming/scale``) passes; returns whether it held.
func eventuallyAsync(timeout: Duration = .seconds(30), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout * TestTiming.scale
    while await !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return true
}
