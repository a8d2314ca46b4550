import Foundation
import Hummingbird
import Synchronization
import Testing
@testable import WebImageServer
#if canImport(Glibc)
import Glibc
#endif

/// What a client connection may hold (``ConnectionLimits``), over real sockets to a server on
/// loopback, and which listener answers the operator's routes.
@Suite("webimage serve: connection limits")
struct ConnectionLimitsTests {
    /// Upper bound on waiting for the server to act: generous, it only matters when a spec fails.
    static let patience = TestTiming.seconds(30)

    @Test("a connection that sends half a head, or nothing, is closed after the header timeout")
    func halfHeadIsClosed() async throws {
        let headerTimeout = TestTiming.seconds(1)
        try await withGuardedServer(ConnectionLimits(headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(60))) { port, _ in
            let half = try RawSocket(port: port)
            let silent = try RawSocket(port: port)
            let started = ContinuousClock.now
            try half.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: a")
            let (halfReply, halfClosed) = try await onOwnThread { try half.readUntilClosed(timeout: Self.patience) }
            let (_, silentClosed) = try await onOwnThread { try silent.readUntilClosed(timeout: Self.patience) }
            let elapsed = ContinuousClock.now - started
            #expect(halfClosed && silentClosed, "still open after \(Self.patience) s")
            #expect(halfReply.isEmpty, "no answer to half a head: \(String(decoding: halfReply, as: UTF8.self))")
            // Never before the timeout: the close is the header timeout's, not something else's.
            #expect(elapsed >= .seconds(headerTimeout * 0.9), "closed after \(elapsed)")
        }
    }

    @Test("a kept-alive connection outlives the header timeout between requests, then closes at the idle timeout")
    func idleConnectionClosesAtIdleTimeout() async throws {
        let headerTimeout = TestTiming.seconds(0.5), idleTimeout = TestTiming.seconds(2)
        try await withGuardedServer(ConnectionLimits(headerTimeout: .seconds(headerTimeout), idleTimeout: .seconds(idleTimeout))) { port, _ in
            let connection = try RawSocket(port: port)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let first = try await onOwnThread { try connection.readUntil("ok\n", timeout: Self.patience) }
            #expect(first.hasPrefix("HTTP/1.1 200"))
            let answered = ContinuousClock.now
            let (_, closed) = try await onOwnThread { try connection.readUntilClosed(timeout: Self.patience) }
            let idle = ContinuousClock.now - answered
            #expect(closed)
            // The idle clock may start before this side sees the answer: the check is that the header
            // timeout (a quarter of the idle one) did not close it.
            #expect(idle >= .seconds(headerTimeout * 2), "closed after \(idle) idle: the header timeout must not apply between requests")
        }
    }

    @Test("a head past the byte limit gets 431 or a close; one within it is answered")
    func oversizedHeadIsRefused() async throws {
        try await withGuardedServer(ConnectionLimits(maxHeaderBytes: 16 * 1024)) { port, _ in
            // Unfinished and finished, in one write or many: each is refused.
            for (head, pieces) in [("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + String(repeating: "a", count: 60 * 1024), 1),
                                   ("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + String(repeating: "a", count: 20 * 1024) + "\r\n\r\n", 1),
                                   ("GET /" + String(repeating: "b", count: 40 * 1024) + " HTTP/1.1\r\nHost: localhost\r\n\r\n", 40)] {
                let connection = try RawSocket(port: port)
                let bytes = Array(head.utf8)
                let size = (bytes.count + pieces - 1) / pieces
                for start in stride(from: 0, to: bytes.count, by: size) {
                    guard (try? connection.send(bytes[start..<min(start + size, bytes.count)])) != nil else { break }  // closed mid-way
                }
                let (reply, closed) = try await onOwnThread { try connection.readUntilClosed(timeout: Self.patience) }
                let text = String(decoding: reply, as: UTF8.self)
                #expect(closed, "a \(bytes.count)-byte head left the connection open")
                #expect(text.isEmpty || text.hasPrefix("HTTP/1.1 431"), "a \(bytes.count)-byte head: \(text.prefix(80))")
            }
            let within = try RawSocket(port: port)
            try within.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Fits: " + String(repeating: "a", count: 12 * 1024) + "\r\n\r\n")
            #expect(try await onOwnThread { try within.readUntil("ok\n", timeout: Self.patience) }.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test("past the connection limit a new connection gets 503 and a close; the open ones still work, and a freed slot is taken again")
    func connectionLimit() async throws {
        try await withGuardedServer(ConnectionLimits(maxConnections: 4)) { port, _ in
            // Each answered once: the server has counted it.
            var open: [RawSocket] = []
            for _ in 0..<4 {
                let connection = try RawSocket(port: port)
                try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try await onOwnThread { try connection.readUntil("ok\n", timeout: Self.patience) }.hasPrefix("HTTP/1.1 200"))
                open.append(connection)
            }
            let extra = try RawSocket(port: port)
            let (reply, closed) = try await onOwnThread { try extra.readUntilClosed(timeout: Self.patience) }
            #expect(closed, "a fifth connection stayed open")
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.isEmpty || text.hasPrefix("HTTP/1.1 503"), "\(text.prefix(80))")
            for connection in open {
                try connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try await onOwnThread { try connection.readUntil("ok\n", timeout: Self.patience) }.hasPrefix("HTTP/1.1 200"))
            }
            open.removeLast().shutdown()
            // The slot frees when the server sees the close: ask until a new connection is answered.
            let answered = await eventually {
                guard let connection = try? RawSocket(port: port), (try? connection.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")) != nil,
                      let reply = try? connection.readUntil("ok\n", timeout: 5) else { return false }
                return reply.hasPrefix("HTTP/1.1 200")
            }
            #expect(answered, "no connection answered after one of four closed")
        }
    }

    @Test("with an admin listener, /metrics and DELETE /purge answer there and not on the public one")
    func adminRoutesOnTheirOwnListener() async throws {
        try await withGuardedServer(ConnectionLimits(), purgeToken: "t0ken") { port, adminPort in
            let adminPort = try #require(adminPort)
            let publicMetrics = try await onOwnThread { try RawHTTPConnection(port: port).get("/metrics") }
            #expect(publicMetrics.status != 200 && !String(decoding: publicMetrics.body, as: UTF8.self).contains("webimage_"),
                    "public /metrics: \(publicMetrics.status)")
            let publicPurge = try RawSocket(port: port)
            try publicPurge.send("DELETE /purge?url=example.com/a.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t0ken\r\nConnection: close\r\n\r\n")
            let purgeReply = String(decoding: try await onOwnThread { try publicPurge.readUntilClosed(timeout: Self.patience) }.0, as: UTF8.self)
            #expect(!purgeReply.hasPrefix("HTTP/1.1 200") && !purgeReply.contains("purged"), "public purge: \(purgeReply.prefix(80))")
            #expect(try await onOwnThread { try RawHTTPConnection(port: port).get("/healthz") }.status == 200)

            let adminMetrics = try await onOwnThread { try RawHTTPConnection(port: adminPort).get("/metrics") }
            #expect(adminMetrics.status == 200 && String(decoding: adminMetrics.body, as: UTF8.self).contains("webimage_"))
            let adminPurge = try RawSocket(port: adminPort)
            try adminPurge.send("DELETE /purge?url=example.com/a.jpg HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer t0ken\r\nConnection: close\r\n\r\n")
            let adminReply = String(decoding: try await onOwnThread { try adminPurge.readUntilClosed(timeout: Self.patience) }.0, as: UTF8.self)
            #expect(adminReply.hasPrefix("HTTP/1.1 200") && adminReply.contains("{\"purged\":0}"), "admin purge: \(adminReply.prefix(200))")
        }
    }

    @Test("webimage serve: the admin listener is on by default beside --port, says where, and off with --admin-port off")
    func serveAdminListener() async throws {
        let directory = try TemporaryFolder.make("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        for off in [false, true] {
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["serve", "--allow-unsafe", "--port", "0", "--drain-grace", "0", "--cache-dir", directory.path] + (off ? ["--admin-port", "off"] : [])
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
            let banner = try await onOwnThread { () -> String in
                var text = ""
                while !text.contains("connections: ") || !text.hasSuffix("\n") {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
                return text
            }
            let lines = banner.split(separator: "\n")
            let port = try #require(lines.first?.split(separator: ":").last.flatMap { Int($0) }, "banner: \(banner)")
            #expect(banner.contains("connections: 1024 at once"), "\(banner)")
            #expect(try await onOwnThread { try RawHTTPConnection(port: port).get("/metrics") }.status != 200)
            let adminLine = try #require(lines.first { $0.hasPrefix("admin ") }, "\(banner)")
            if off {
                #expect(adminLine.hasSuffix(": off"))
            } else {
                #expect(adminLine.contains("http://127.0.0.1:"))
                let adminPort = try #require(adminLine.split(separator: ":").last.flatMap { Int($0) })
                #expect(try await onOwnThread { try RawHTTPConnection(port: adminPort).get("/metrics") }.status == 200)
            }
        }
    }
}

// MARK: Support

/// An ``ImageServer`` behind `.guardedHTTP1(limits)`: its public routes on one listener and its
/// admin routes on another, as `webimage serve` runs them; `body` gets both ports.
private func withGuardedServer(
    _ limits: ConnectionLimits, purgeToken: String? = nil, _ body: (_ port: Int, _ adminPort: Int?) async throws -> Void
) async throws {
    let directory = TemporaryFolder.url("limits")
    var configuration = ImageServerConfiguration()
    configuration.allowUnsafe = true
    configuration.cacheDirectory = directory
    configuration.purgeToken = purgeToken
    let server = ImageServer(configuration: configuration)
    let router = Router()
    server.addRoutes(to: router)
    let adminRouter = Router()
    server.addAdminRoutes(to: adminRouter)
    let bound = Mutex<(Int?, Int?)>((nil, nil))
    let app = Application(
        router: router, server: .guardedHTTP1(limits), configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in bound.withLock { $0.0 = channel.localAddress?.port } })
    let admin = Application(
        router: adminRouter, server: .guardedHTTP1(limits), configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in bound.withLock { $0.1 = channel.localAddress?.port } })
    let running = [Task { try await app.run() }, Task { try await admin.run() }]
    do {
        try #require(await eventually { bound.withLock { $0.0 != nil && $0.1 != nil } })
        let ports = bound.withLock { $0 }
        try await body(ports.0!, ports.1)
    } catch {
        Issue.record(error)
    }
    for task in running {
        task.cancel()
        _ = await task.result
    }
    await server.shutdown()
    try? FileManager.default.removeItem(at: directory)
}

/// A blocking loopback TCP connection that sends bytes as given and tells when the peer closes.
private final class RawSocket: Sendable {
    private let fd: Int32

    init(port: Int) throws {
        fd = try NginxRunner.connectLoopback(port: port)
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)[...]) }

    func send(_ bytes: ArraySlice<UInt8>) throws {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw RawHTTPError.socket(errno) }
            sent += count
        }
    }

    /// Both directions shut: the server sees the close.
    func shutdown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// What arrives until the peer closes (end of stream or a reset), or `timeout` seconds pass:
    /// the bytes, and whether it closed.
    func readUntilClosed(timeout: Double) throws -> ([UInt8], Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return (received, false) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left, 1) * 1000))
            if ready < 0, errno != EINTR { throw RawHTTPError.socket(errno) }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return (received, true)
            } else if errno != EINTR && errno != EAGAIN {
                throw RawHTTPError.socket(errno)
            }
        }
    }

    /// What arrives until the text holds `marker`, within `timeout` seconds.
    func readUntil(_ marker: String, timeout: Double) throws -> String {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw RawHTTPError.malformed("no \(marker.debugDescription) within \(timeout) s: \(String(decoding: received, as: UTF8.self))") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw RawHTTPError.closed }
            received += chunk[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
