import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// The lean carrier for bulk work (``DownloaderConfig/Transport/http1``): an HTTP/1.1 client on
/// SwiftNIO, keep-alive connections per ``Origin``, one request at a time each, an idle connection
/// on the caller's event loop first (a prefetch worker on a loop keeps one there, curl's
/// `--parallel` shape). It does only what a download needs: TLS as AsyncHTTPClient sets it up
/// (NIOSSL, the system's trust roots, the host name — or an IP literal — checked), a connect
/// timeout, pinning a hop to an address, word of a request a reused connection dropped
/// unanswered, and cancellation; the transfer above it keeps every other rule.
final class HTTP1Transport: Carrier {
    private struct State {
        var idle: [PoolKey: [HTTP1Connection]] = [:]
        /// Connections in `idle`, all hosts together (kept, not summed on every release).
        var idleCount = 0
        var isShutDown = false

        /// Takes `connection` out of the idle lists; whether it was there.
        mutating func removeIdle(_ connection: HTTP1Connection) -> Bool {
            guard let index = idle[connection.key]?.firstIndex(where: { $0 === connection }) else { return false }
            idle[connection.key]?.remove(at: index)
            idleCount -= 1
            return true
        }
    }

    let group: any EventLoopGroup
    let connectTimeout: TimeAmount
    private let state = Mutex(State())
    /// Idle connections kept per host and port, and in all; more are closed when they come back.
    private let idleLimitPerHost = 64
    private let idleLimit = 256
    /// How long an idle connection is kept (``DownloaderConfig/idleConnectionTimeout``).
    private let idleTimeout: TimeAmount
    /// TLS contexts, made on first use (each loads the trust roots): checking certificates, and
    /// not checking them (``DownloaderOptions/allowInvalidSSLCertificates``).
    private let tlsContexts = Mutex<[Bool: NIOSSLContext]>([:])
    /// What a connection that checks certificates starts from (the config's extra trust roots).
    private let tlsConfiguration: TLSConfiguration?
    /// What a hop that skips the certificate check starts from.
    static let unverified: TLSConfiguration = {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }()
    let capabilities: CarrierCapabilities = .pinsAddress

    init(config: DownloaderConfig, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
        connectTimeout = .bound(seconds: config.downloadTimeout)
        idleTimeout = .bound(seconds: config.idleConnectionTimeout)
        tlsConfiguration = config.clientTLSConfiguration
    }

    /// One executor per event loop of the group, for prefetch workers (``BulkLoadExecuting``).
    var bulkExecutors: [any TaskExecutor] { group.makeIterator().map { EventLoopTaskExecutor($0) } }

    /// Whether this client carries `url`: `http` or `https` with a host.
    static func handles(_ url: URL) -> Bool {
        guard url.hasHTTPScheme else { return false }
        // The host as written: only whether there is one matters here, and decoding it cost more than the rest.
        return !(url.host(percentEncoded: true) ?? "").isEmpty
    }

    func send(_ hop: CarrierHop, to events: any HopEvents) -> Result<any CarriedHop, WebImageError> {
        let eventLoop = MultiThreadedEventLoopGroup.currentEventLoop ?? group.next()
        let exchange = HTTP1Exchange(
            request: hop.request, address: hop.address, events: events, eventLoop: eventLoop,
            tlsConfiguration: hop.skipsCertificateCheck ? Self.unverified : nil)
        send(exchange)
        return .success(exchange)
    }

    /// What a connection may carry: requests for one origin, pinned to one address (or none), with
    /// certificates checked or not — a connection pinned to one address never carries a request
    /// for another, and one that skipped the check never carries a request that wants it. A value,
    /// not a string: working it out for every request of a bulk download allocates nothing.
    struct PoolKey: Hashable, Sendable {
        let origin: Origin
        let address: String?
        let unverified: Bool

        init(_ origin: Origin, address: String?, tlsConfiguration: TLSConfiguration?) {
            self.origin = origin
            self.address = address
            unverified = origin.isSecure && tlsConfiguration?.certificateVerification == CertificateVerification.none
        }
    }

    /// Where requests for a pool key go: the host (for TLS), the address and port to connect to, and TLS.
    struct Route {
        let key: PoolKey
        let host: String
        /// What the connection dials: the pinned address, or else the host (resolved then).
        let dialed: String
        let port: Int
        let secure: Bool
        let verifies: Bool

        init(_ key: PoolKey) {
            host = key.origin.host
            secure = key.origin.isSecure
            verifies = !key.unverified
            port = key.origin.port
            dialed = key.address ?? host
            self.key = key
        }
    }

    /// Sends the exchange's current request on an idle connection to its host, or a new one.
    func send(_ exchange: HTTP1Exchange) {
        guard let origin = Origin(exchange.request.url) else { return exchange.connectFailed(WebImageError.invalidURL(exchange.request.url.absoluteString)) }
        let key = PoolKey(origin, address: exchange.address, tlsConfiguration: exchange.tlsConfiguration)
        let reused = state.withLock { state -> HTTP1Connection? in
            guard !state.isShutDown, let count = state.idle[key]?.count, count > 0 else { return nil }
            // Taken out in place: a copy of the list would make the removal copy its storage.
            let index = state.idle[key]!.lastIndex { $0.eventLoop === exchange.eventLoop } ?? count - 1
            state.idleCount -= 1
            return state.idle[key]!.remove(at: index)
        }
        if let reused { return reused.send(exchange) }
        let route = Route(key)
        let connection = HTTP1Connection(key: key, transport: self, eventLoop: exchange.eventLoop)
        connect(route, tlsConfiguration: exchange.tlsConfiguration, handler: connection, on: exchange.eventLoop).whenComplete { result in
            switch result {
            case .success: connection.send(exchange)
            case .failure(let error): exchange.connectFailed(error)
            }
        }
    }

    /// A new connection for `route` on `eventLoop`, with `handler` last in its pipeline to read
    /// the responses; fails at once once the transport is shut down.
    func connect(
        _ route: Route, tlsConfiguration: TLSConfiguration?, handler: some ChannelInboundHandler & Sendable,
        on eventLoop: any EventLoop
    ) -> EventLoopFuture<any Channel> {
        if state.withLock({ $0.isShutDown }) { return eventLoop.makeFailedFuture(ImageDownloader.shutDown) }
        let tls: NIOSSLContext?
        do {
            tls = route.secure ? try tlsContext(verifying: route.verifies, configuration: tlsConfiguration) : nil
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        // No SNI for an IP literal (TLS forbids it); the certificate is then checked against the address.
                        let isAddress = (try? SocketAddress(ipAddress: route.host, port: route.port)) != nil
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : route.host))
                    }
                    // Requests go out as bytes (DownloadRequest.http1Bytes); `handler` reads the
                    // responses' bytes with an HTTP1ResponseParser.
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: route.dialed, port: route.port)
    }

    /// Connections waiting in the pool, all hosts together.
    var idleConnectionCount: Int { state.withLock { $0.idleCount } }

    /// The TLS context for connections that check certificates (or, with `verifying` false, that
    /// do not), as AsyncHTTPClient would set it up for HTTP/1.1.
    private func tlsContext(verifying: Bool, configuration: TLSConfiguration?) throws -> NIOSSLContext {
        if let made = tlsContexts.withLock({ $0[verifying] }) { return made }
        var configuration = configuration ?? tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: configuration)
        return tlsContexts.withLock { contexts in
            if let made = contexts[verifying] { return made }  // another loop made it meanwhile
            contexts[verifying] = context
            return context
        }
    }

    /// A connection that finished a response and may carry another.
    func release(_ connection: HTTP1Connection) {
        // Marked idle before it is in the pool: a send that takes it from there at once marks it busy after.
        let needsTimer = connection.becameIdle()
        let keep = state.withLock { state -> Bool in
            guard !state.isShutDown, connection.isOpen, state.idle[connection.key, default: []].count < idleLimitPerHost,
                  state.idleCount < idleLimit
            else { return false }
            state.idle[connection.key, default: []].append(connection)
            state.idleCount += 1
            return true
        }
        guard keep else { return connection.close() }
        if needsTimer { armIdleTimer(connection, in: idleTimeout) }
    }

    /// Closes `connection` once it has sat in the pool for the idle timeout: one timer per
    /// connection (not per release), re-armed for the rest of the time when it was reused. Held
    /// strongly: a weak reference would put every retain of a connection on the slow path.
    private func armIdleTimer(_ connection: HTTP1Connection, in delay: TimeAmount) {
        connection.eventLoop.scheduleTask(in: delay) { [self] in
            switch connection.idleCheck(timeout: idleTimeout) {
            case .busy: return
            case .recheck(let rest): armIdleTimer(connection, in: rest)
            case .expired: if state.withLock({ $0.removeIdle(connection) }) { connection.close() }
            }
        }
    }

    /// A connection that closed while idle.
    func forget(_ connection: HTTP1Connection) {
        _ = state.withLock { $0.removeIdle(connection) }
    }

    func shutdown(_ completion: @escaping @Sendable () -> Void) {
        shutdown()
        completion()
    }

    /// Closes the idle connections; requests after this fail.
    func shutdown() {
        let all = state.withLock { state in
            state.isShutDown = true
            defer { state.idle = [:]; state.idleCount = 0 }
            return state.idle.values.flatMap { $0 }
        }
        all.forEach { $0.close() }
    }
}
