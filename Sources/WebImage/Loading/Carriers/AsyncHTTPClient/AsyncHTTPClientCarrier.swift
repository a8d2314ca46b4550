import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Hops on AsyncHTTPClient: the downloader's own `HTTPClient`, or one the app already has. A hop
/// pinned to an address goes on a client of the carrier's own whose `dnsOverride` sends that
/// host to that address (`PinnedClients`); with a hop policy, an app's client carries no hop at
/// all (it might follow a redirect the policy never saw).
final class AsyncHTTPClientCarrier: Carrier {
    let capabilities: CarrierCapabilities = .pinsAddress
    var bulkExecutors: [any TaskExecutor] { [] }

    private let client: HTTPClient
    private let ownsClient: Bool
    /// The carrier's own clients: pinned ones, and with a hop policy on an app's client, an unpinned one.
    private let own: PinnedClients
    private let everyHopOnOwnClients: Bool
    /// What a client following redirects itself reports past its limit (an app's client).
    private let redirectLimit: Int
    /// For hops that skip the certificate check, made once (each one is a pool key of its own).
    private let unverified: TLSConfiguration = {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }()

    init(config: DownloaderConfig, client: HTTPClient, ownsClient: Bool) {
        self.client = client
        self.ownsClient = ownsClient
        own = PinnedClients(configuration: Self.clientConfiguration(config), idleLifetime: .bound(seconds: config.idleConnectionTimeout))
        everyHopOnOwnClients = !ownsClient && config.hopPolicy != nil
        redirectLimit = config.maximumRedirects
    }

    /// The `HTTPClient` configuration for `config`: the downloader's own client's, and the base of
    /// its pinned ones.
    static func clientConfiguration(_ config: DownloaderConfig) -> HTTPClient.Configuration {
        let timeout = TimeAmount.bound(seconds: config.downloadTimeout)
        // No client read timeout: each request keeps its own idle timer (DownloadRequest.timeout,
        // which starts as downloadTimeout and a request modifier may change).
        var configuration = HTTPClient.Configuration(
            // Redirects are the transfer's (RedirectChain): one rule set and one hop policy on every carrier.
            redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: nil))
        // A refused connection fails at once, as with URLSession, instead of being retried until
        // the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        configuration.connectionPool.idleTimeout = .bound(seconds: config.idleConnectionTimeout)
        configuration.tlsConfiguration = config.clientTLSConfiguration
        return configuration
    }

    func send(_ hop: CarrierHop, to events: any HopEvents) -> Result<any CarriedHop, WebImageError> {
        let url = hop.request.url
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: url, method: HTTPMethod(rawValue: hop.request.method.rawValue),
                headers: HTTPHeaders(requestFields: hop.request.headerFields), body: nil,
                tlsConfiguration: hop.skipsCertificateCheck ? unverified : nil)
        } catch {
            return .failure(.invalidURL(url.absoluteString))
        }
        let lease: PinnedClients.Lease?
        if let address = hop.address {
            lease = own.lease(host: url.host ?? "", address: address)
        } else {
            lease = everyHopOnOwnClients ? own.lease(host: nil, address: nil) : nil
        }
        let carried = AsyncHTTPClientHop(url: url, events: events, redirectLimit: redirectLimit)
        // No client deadline: the transfer's state keeps the resource timeout, on every carrier.
        let task = (lease?.client ?? client).execute(request: request, delegate: carried)
        carried.started(task, lease: lease)
        return .success(carried)
    }

    func shutdown(_ completion: @escaping @Sendable () -> Void) {
        own.shutdown()
        guard ownsClient else { return completion() }
        client.shutdown { _ in completion() }
    }
}
