import Foundation
import HTTPTypes
import NIOCore

/// Moves the bytes of one hop of a download and says what happened — nothing more: the
/// ``DownloadTransfer`` above it keeps every rule (redirects, checks, limits, timers, the retry),
/// whichever carrier it runs on. A downloader picks its carrier once, when it is made.
protocol Carrier: Sendable {
    /// What this carrier can do beyond sending a hop.
    var capabilities: CarrierCapabilities { get }

    /// Sends `hop`. Everything about it goes to `events`, ending with exactly one
    /// ``HopEvents/hopEnded()`` or ``HopEvents/hopFailed(_:unanswered:)``; the returned hop
    /// stops it. A hop that cannot even start fails here instead.
    func send(_ hop: CarrierHop, to events: any HopEvents) -> Result<any CarriedHop, WebImageError>

    /// The executors a prefetch spreads its workers over (one per event loop); empty for none.
    var bulkExecutors: [any TaskExecutor] { get }

    /// Stops taking hops and lets the connections go; `completion` hears when it is done.
    func shutdown(_ completion: @escaping @Sendable () -> Void)
}

/// What a carrier can do.
struct CarrierCapabilities: OptionSet, Sendable {
    let rawValue: Int
    /// Connects a hop to the address its hop policy chose (``DownloadHop/address``), the name
    /// still checked by TLS.
    static let pinsAddress = CarrierCapabilities(rawValue: 1 << 0)
}

/// One hop as a carrier sends it.
struct CarrierHop: Sendable {
    var request: DownloadRequest
    /// Where to connect instead of resolving the host; `nil` = resolve it.
    var address: String?
    /// Certificates go unchecked (``DownloaderOptions/allowInvalidSSLCertificates``).
    var skipsCertificateCheck: Bool
}

/// A hop on its carrier.
protocol CarriedHop: AnyObject, Sendable {
    /// The loop the hop's events arrive on (the transfer's timers run there).
    var eventLoop: any EventLoop { get }
    /// Stops the hop: its events end with ``HopEvents/hopFailed(_:unanswered:)``, `error` winning.
    func stop(_ error: WebImageError)
}

/// A response head as a carrier reports it.
struct HopHead {
    /// The URL the hop asked for.
    var url: URL
    var status: Int
    var fields: HTTPFields
}

/// What hears a hop's events (the transfer): a head, body parts, then one end or failure.
protocol HopEvents: AnyObject, Sendable {
    /// A response head arrived; `false` stops the hop (the transfer has already told it why).
    func headArrived(_ head: HopHead, on hop: any CarriedHop) -> Bool
    /// A part of the body arrived; `false` stops the hop.
    func bodyArrived(_ buffer: ByteBuffer, on hop: any CarriedHop) -> Bool
    /// The response is complete.
    func hopEnded()
    /// The hop failed. `unanswered`: the request went out on a kept-alive connection that closed
    /// before any response (the transfer may send it once more).
    func hopFailed(_ error: WebImageError, unanswered: Bool)
}
