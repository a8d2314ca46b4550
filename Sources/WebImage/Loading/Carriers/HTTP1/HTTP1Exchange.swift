import Foundation
import HTTPTypes
import NIOCore
import NIOSSL
import Synchronization

/// One hop of a download on ``HTTP1Transport`` (the transfer follows redirects, and sends a hop
/// once more when this one reports a kept-alive connection that dropped it unanswered): the
/// request, and the ``CarriedHop`` its transfer stops it through. Ends exactly once: the
/// transfer hears `hopEnded()` or `hopFailed(_:unanswered:)`.
final class HTTP1Exchange: CarriedHop {
    /// Where the hop is; an event its phase cannot take is a bug in the connection, a trap in debug builds.
    private enum Phase {
        /// Waiting for a connection: an idle one, or one being made.
        case waiting
        /// The request went out on the connection; `keepAlive` once the response's head said.
        case sent(HTTP1Connection, keepAlive: Bool?)
        /// The transfer stopped the hop for `error`; its connection is closing.
        case stopping(HTTP1Connection, WebImageError)
        /// The transfer heard the hop's end.
        case done
    }

    /// What to tell the transfer, once the lock is let go.
    private enum Report {
        case none
        case ended
        case failed(WebImageError, unanswered: Bool)
    }

    let eventLoop: any EventLoop
    /// For `https` hops: set only to skip the certificate check (``DownloaderOptions/allowInvalidSSLCertificates``).
    let tlsConfiguration: TLSConfiguration?
    let request: DownloadRequest
    /// Where to connect instead of resolving the host (``DownloadHop/address``).
    let address: String?
    private let events: any HopEvents
    private let phase = Mutex(Phase.waiting)

    init(
        request: DownloadRequest, address: String?, events: any HopEvents,
        eventLoop: any EventLoop, tlsConfiguration: TLSConfiguration?
    ) {
        self.request = request
        self.address = address
        self.tlsConfiguration = tlsConfiguration
        self.events = events
        self.eventLoop = eventLoop
    }

    /// Takes `connection` for the hop; `false` when the hop has ended (stopped while it waited
    /// for one), and the connection stays free.
    func attach(_ connection: HTTP1Connection) -> Bool {
        phase.withLock { phase in
            switch phase {
            case .waiting:
                phase = .sent(connection, keepAlive: nil)
                return true
            case .done:
                return false
            case .sent, .stopping:
                return Self.invalid("a second connection for one hop", false)
            }
        }
    }

    // MARK: From the connection

    func received(_ part: HTTP1ResponseParser.Event, on connection: HTTP1Connection) {
        switch part {
        case .head(let head):
            let wanted = phase.withLock { phase in
                guard case .sent(let connection, nil) = phase else { return false }
                phase = .sent(connection, keepAlive: head.keepAlive)
                return true
            }
            if wanted { _ = events.headArrived(HopHead(url: request.url, status: head.status, fields: head.fields), on: self) }
        case .body(let buffer):
            let wanted = phase.withLock { phase in
                if case .sent(_, .some) = phase { true } else { false }
            }
            if wanted { _ = events.bodyArrived(buffer, on: self) }
        case .end:
            let (reusable, report) = phase.withLock { phase -> (Bool, Report) in
                defer { phase = .done }
                switch phase {
                case .sent(_, let keepAlive): return (keepAlive == true, .ended)
                // A response the transfer refused (status, type, size): its connection is closed.
                case .stopping(_, let error): return (false, .failed(error, unanswered: false))
                case .waiting, .done: return (false, .none)
                }
            }
            connection.responseEnded(reusable: reusable)
            tell(report)
        }
    }

    /// The connection closed (or was found closed) before the response ended; `reused`: it had
    /// carried a response before.
    func connectionEnded(reused: Bool, error: any Error) {
        tell(phase.withLock { phase -> Report in
            defer { phase = .done }
            switch phase {
            case .waiting: return .failed(mapped(error), unanswered: reused)
            case .sent(_, let keepAlive): return .failed(mapped(error), unanswered: reused && keepAlive == nil)
            case .stopping(_, let reason): return .failed(reason, unanswered: false)
            case .done: return .none
            }
        })
    }

    func connectFailed(_ error: any Error) {
        tell(phase.withLock { phase -> Report in
            guard case .waiting = phase else { return .none }
            phase = .done
            return .failed(mapped(error), unanswered: false)
        })
    }

    // MARK: CarriedHop

    func stop(_ error: WebImageError) {
        let (connection, report) = phase.withLock { phase -> (HTTP1Connection?, Report) in
            switch phase {
            case .waiting:
                phase = .done
                return (nil, .failed(error, unanswered: false))
            case .sent(let connection, _):
                phase = .stopping(connection, error)
                return (connection, .none)
            case .stopping, .done:
                return (nil, .none)
            }
        }
        connection?.close()
        tell(report)
    }

    // MARK: Internals

    private func tell(_ report: Report) {
        switch report {
        case .none: break
        case .ended: events.hopEnded()
        case .failed(let error, let unanswered): events.hopFailed(error, unanswered: unanswered)
        }
    }

    /// The lean client's errors — NIO's, and its parser's — as ``WebImageError``.
    private func mapped(_ error: any Error) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if let error = error as? HTTP1ResponseParser.ParseError {
            return .transport(error == .truncated ? .connectionLost(reason: error.description) : .badServerResponse(reason: error.description))
        }
        return .transport(NIOErrorMapping.transportError(error, host: request.url.host ?? "?") ?? .other("\(error)"))
    }

    private static func invalid<T>(_ what: String, _ fallback: T) -> T {
        assertionFailure("HTTP1Exchange: \(what)")
        return fallback
    }
}
