import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import Testing
import WebImage
@testable import WebImageServer

/// An ``ImageServer`` on a real loopback port in front of a ``TestOrigin``, and a client to ask it.
struct ServerHarness: Sendable {
    let origin: TestOrigin
    let server: ImageServer
    let port: Int
    let client: HTTPClient

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    /// `path` on the server (a thumbor path; `ORIGIN` is replaced by the origin's `127.0.0.1:port`).
    func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        try await send(.GET, path, headers: headers)
    }

    func delete(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        try await send(.DELETE, path, headers: headers)
    }

    private func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)]) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path.replacingOccurrences(of: "ORIGIN", with: "127.0.0.1:\(origin.port)"))
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body))
    }

    /// `/unsafe/...` made out of the origin path: `unsafe("300x200", "/a.png")`.
    func unsafe(_ options: String, _ originPath: String) -> String {
        "/unsafe/" + (options.isEmpty ? "" : options + "/") + "ORIGIN" + originPath
    }
}

/// Runs `body` with a server configured by `configure` (unsafe URLs and loopback sources allowed,
/// caches in a temporary directory; source hosts resolved by `lookUp`) and an origin, then stops both.
func withImageServer(
    _ configure: (inout ImageServerConfiguration) -> Void = { _ in },
    lookUp: SourceResolver.Lookup? = nil,
    logger: Logger = Logger(label: "WebImageServer"),
    _ body: (ServerHarness) async throws -> Void
) async throws {
    let origin = try await TestOrigin.start()
    let directory = TemporaryFolder.url("server")
    var configuration = ImageServerConfiguration()
    configuration.allowUnsafe = true
    configuration.allowLoopbackSources = true
    configuration.cacheDirectory = directory
    configure(&configuration)
    let server = ImageServer(configuration: configuration, logger: logger, lookUp: lookUp)
    let router = Router()
    server.addRoutes(to: router)
    // One router for both faces here: the specs ask /metrics and /purge where they ask images.
    server.addAdminRoutes(to: router)
    let bound = Mutex<Int?>(nil)
    let app = Application(
        router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            server.serving(on: channel.localAddress)
            bound.withLock { $0 = channel.localAddress?.port }
        })
    let running = Task { try await app.run() }
    // One connection per concurrent request, as 100 browsers would open: the merging specs need
    // them all at the server at once, not queued in the client's pool (8 per host by default).
    var clientConfiguration = HTTPClient.Configuration()
    clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 256
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    do {
        try #require(await eventually { bound.withLock { $0 } != nil })
        try await body(ServerHarness(origin: origin, server: server, port: bound.withLock { $0 }!, client: client))
    } catch {
        Issue.record(error)
    }
    running.cancel()
    _ = await running.result
    await server.shutdown()
    try? await client.shutdown()
    await origin.shutdown()
    try? FileManager.default.removeItem(at: directory)
}
