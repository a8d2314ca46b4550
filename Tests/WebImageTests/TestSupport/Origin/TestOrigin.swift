import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 (random port) for tests that download: fixture routes,
/// misbehaving routes (``OriginResponse``), and a record of what it was asked.
///
/// ```swift
/// let origin = try await TestOrigin.start()
/// defer { origin.stop() }
/// origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
/// ... download origin.url("/a.jpg") ...
/// #expect(origin.requestCount("/a.jpg") == 1)
/// ```
/// Unrouted paths answer 404. Every fixture is also served at `/fixtures/<name>`.
final class TestOrigin: Sendable {
    static let fixturesDirectory: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    private struct State {
        var routes: [String: OriginResponse] = [:]
        var counts: [String: Int] = [:]
        var log: [OriginRequest] = []
        var inFlight = 0
        var maxInFlight = 0
        var connections = 0
        var openConnections = 0
    }

    private let state = Mutex(State())
    private let channel = Mutex<(any Channel)?>(nil)
    /// The port the origin listens on.
    let port: Int
    /// `https` when the origin speaks TLS, else `http`.
    let scheme: String

    private init(port: Int, scheme: String) {
        self.port = port
        self.scheme = scheme
    }

    /// Starts a fresh origin on a free port; with `tls`, every connection is TLS first
    /// (see ``SelfSignedCertificate``).
    static func start(tls: NIOSSLContext? = nil) async throws -> TestOrigin {
        let holder = Mutex<TestOrigin?>(nil)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let origin = holder.withLock({ $0 }) else { return channel.close() }
                origin.state.withLock { $0.connections += 1; $0.openConnections += 1 }
                channel.closeFuture.whenComplete { _ in origin.state.withLock { $0.openConnections -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(OriginHandler(origin: origin))
                }
            }
        let server = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        let origin = TestOrigin(port: server.localAddress?.port ?? 0, scheme: tls == nil ? "http" : "https")
        origin.channel.withLock { $0 = server }
        holder.withLock { $0 = origin }
        return origin
    }

    /// Stops listening. Open connections close when their clients go (tests shut their
    /// HTTP clients down); nothing here blocks.
    func stop() {
        channel.withLock { $0 }?.close(promise: nil)
    }

    /// Stops listening and waits until the listening socket is closed.
    func shutdown() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// `http://127.0.0.1:<port><path>` (`https` for a TLS origin).
    func url(_ path: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// Answers `path` (query ignored) with `response` from now on.
    func route(_ path: String, _ response: OriginResponse) {
        state.withLock { $0.routes[path] = response }
    }

    /// How many requests reached `path` (query ignored).
    func requestCount(_ path: String) -> Int {
        state.withLock { $0.counts[path] ?? 0 }
    }

    /// Every request so far, in arrival order.
    var requests: [OriginRequest] { state.withLock { $0.log } }

    /// The requests for `path`, in arrival order.
    func requests(_ path: String) -> [OriginRequest] { requests.filter { $0.path == path } }

    /// The most requests that were in flight at once (received, response not yet ended).
    var maxConcurrentRequests: Int { state.withLock { $0.maxInFlight } }

    /// Connections accepted so far.
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Connections accepted and not yet closed.
    var openConnectionCount: Int { state.withLock { $0.openConnections } }

    /// Requests received whose response has not ended (nor their connection closed).
    var inFlightRequests: Int { state.withLock { $0.inFlight } }

    /// Request paths in arrival order.
    var requestOrder: [String] { requests.map(\.path) }

    // MARK: Called by OriginHandler

    func begin(_ request: OriginRequest) -> [OriginStep] {
        let response = state.withLock { state -> OriginResponse? in
            state.counts[request.path, default: 0] += 1
            state.log.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            if let route = state.routes[request.path] { return route }
            if request.path.hasPrefix("/fixtures/") { return .fixture(String(request.path.dropFirst("/fixtures/".count))) }
            return nil
        }
        return Self.steps(for: response ?? .status(404), request: request)
    }

    func end(_ path: String) {
        state.withLock { $0.inFlight -= 1 }
    }

    // MARK: Responses as steps

    private static func contentTypeHeader(_ type: String?, _ body: OriginBody) -> [(String, String)] {
        guard let type else { return [] }
        return [("Content-Type", type.isEmpty ? body.defaultContentType : type)]
    }

    static func steps(for response: OriginResponse, request: OriginRequest) -> [OriginStep] {
        switch response {
        case .body(let body, let status, let type, let headers):
            let data = body.data
            return [.head(status: status, headers: contentTypeHeader(type, body) + headers + [("Content-Length", "\(data.count)")]),
                    .body(data), .end]
        case .status(let status):
            let text = Data("status \(status)\n".utf8)
            return [.head(status: status, headers: [("Content-Type", "text/plain"), ("Content-Length", "\(text.count)")]),
                    .body(text), .end]
        case .drip(let body, let bytesPerSecond, let chunkSize, let type):
            let data = body.data
            var steps: [OriginStep] = [.head(status: 200, headers: contentTypeHeader(type, body) + [("Content-Length", "\(data.count)")])]
            let pause = TimeAmount.nanoseconds(Int64(Double(chunkSize) / Double(max(1, bytesPerSecond)) * 1e9))
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + chunkSize)
                steps += [.body(data.subdata(in: offset..<end)), .wait(pause)]
                offset = end
            }
            return steps + [.end]
        case .truncated(let body, let sent, let type):
            let data = body.data
            return [.head(status: 200, headers: contentTypeHeader(type, body) + [("Content-Length", "\(data.count)")]),
                    .body(data.prefix(sent)), .wait(.milliseconds(5)), .close]
        case .reset(let body, let sent, let type):
            let data = body.data
            return [.head(status: 200, headers: contentTypeHeader(type, body) + [("Content-Length", "\(data.count)")]),
                    .body(data.prefix(sent)), .wait(.milliseconds(5)), .reset]
        case .hugeDeclaredLength(let length, let type):
            return [.head(status: 200, headers: [("Content-Type", type), ("Content-Length", "\(length)")]),
                    .trickle(chunk: 16 * 1024, interval: .milliseconds(2), limit: 64 * 1024 * 1024), .close]
        case .notModified(let length):
            // Connection: close, since the pipeline handler never saw this response end.
            let head = "HTTP/1.1 304 Not Modified\r\nContent-Type: image/jpeg\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
            return [.raw(Data(head.utf8)), .wait(.milliseconds(5)), .close]
        case .chunked(let body, let chunkSize, let type):
            let data = body.data
            var steps: [OriginStep] = [.head(status: 200, headers: contentTypeHeader(type, body))]
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + chunkSize)
                steps.append(.body(data.subdata(in: offset..<end)))
                offset = end
            }
            return steps + [.end]
        case .redirect(let location, let status):
            return [.head(status: status, headers: [("Location", location), ("Content-Length", "0")]), .end]
        case .validated(let body, let etag, let lastModified, let type):
            var validators: [(String, String)] = []
            if let etag { validators.append(("ETag", etag)) }
            if let lastModified { validators.append(("Last-Modified", lastModified)) }
            let notModified = (etag != nil && request.header("if-none-match") == etag)
                || (lastModified != nil && request.header("if-modified-since") == lastModified)
            if notModified {
                return [.head(status: 304, headers: validators), .end]
            }
            return steps(for: .body(body, contentType: type, headers: validators), request: request)
        case .thenClose(let inner):
            return steps(for: inner, request: request) + [.close]
        case .delayed(let seconds, let inner):
            return [.wait(.nanoseconds(Int64(seconds * 1e9)))] + steps(for: inner, request: request)
        case .gated(let gate, let inner):
            return [.waitFor(gate)] + steps(for: inner, request: request)
        case .dynamic(let choose):
            return steps(for: choose(request), request: request)
        }
    }
}
