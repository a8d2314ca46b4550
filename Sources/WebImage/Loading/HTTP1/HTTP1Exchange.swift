import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOSSL
import Synchronization

/// One hop of a download on ``HTTP1Transport`` (the transfer follows redirects, and sends a hop
/// once more when this one reports a kept-alive connection that dropped it unanswered): the
/// request, and the ``TransferTask`` its transfer stops it through. Ends exactly once: the
/// transfer hears `finished()` or `failed(_:unanswered:)`.
final class HTTP1Exchange: TransferTask {
    private struct State {
        var connection: HTTP1Connection?
        var receivedHead = false
        var keepAlive = true
        var failure: (any Error)?
        var isDone = false
    }

    let eventLoop: any EventLoop
    /// For `https` hops: set only to skip the certificate check (``DownloaderOptions/allowInvalidSSLCertificates``).
    let tlsConfiguration: TLSConfiguration?
    let request: DownloadRequest
    /// Where to connect instead of resolving the host (``DownloadHop/address``).
    let address: String?
    private let transfer: DownloadTransfer
    private let transport: HTTP1Transport
    private let state: Mutex<State>

    init(
        request: DownloadRequest, address: String?, transfer: DownloadTransfer, transport: HTTP1Transport,
        eventLoop: any EventLoop, tlsConfiguration: TLSConfiguration?
    ) {
        self.request = request
        self.address = address
        self.tlsConfiguration = tlsConfiguration
        self.transfer = transfer
        self.transport = transport
        self.eventLoop = eventLoop
        state = Mutex(State())
    }

    /// Takes `connection` for the current hop; `false` when the exchange has ended (failed or
    /// cancelled while it waited for one), and the connection stays free.
    func attach(_ connection: HTTP1Connection) -> Bool {
        state.withLock { state in
            guard !state.isDone else { return false }
            state.connection = connection
            state.receivedHead = false
            return true
        }
    }

    // MARK: From the connection

    func received(_ part: HTTP1ResponseParser.Event, on connection: HTTP1Connection) {
        switch part {
        case .head(let head):
            state.withLock { state in
                state.receivedHead = true
                state.keepAlive = head.keepAlive
            }
            transfer.visited(request.url, setCookies: head.fields[values: .setCookie])
            _ = transfer.headArrived(status: head.status, fields: head.fields, task: self)
        case .body(let buffer):
            if !state.withLock({ $0.isDone }) { _ = transfer.bodyArrived(buffer, task: self) }
        case .end:
            let (reusable, done) = state.withLock { state in
                state.connection = nil
                // A response the transfer refused (status, type, size) had its connection closed.
                return (state.keepAlive && state.failure == nil && !state.isDone, state.isDone)
            }
            if reusable { transport.release(connection) } else { connection.close() }
            if !done { end(nil) }
        }
    }

    /// The connection closed (or was found closed) before the response ended.
    func connectionEnded(reused: Bool, error: any Error) {
        let unanswered = state.withLock { state in
            state.connection = nil
            return reused && !state.receivedHead
        }
        end(error, unanswered: unanswered)
    }

    func connectFailed(_ error: any Error) {
        end(error)
    }

    // MARK: TransferTask

    func fail(reason: any Error) {
        let connection = state.withLock { state in
            state.failure = state.failure ?? reason
            return state.connection
        }
        if let connection { connection.close() } else { end(reason) }
    }

    func cancel() {
        fail(reason: HTTPClientError.cancelled)
    }

    // MARK: Internals

    private func end(_ error: (any Error)?, unanswered: Bool = false) {
        let (first, failure) = state.withLock { state in
            defer { state.isDone = true }
            return (!state.isDone, state.failure)
        }
        guard first else { return }
        if let failure { return transfer.failed(failure) }
        if let error { transfer.failed(error, unanswered: unanswered) } else { transfer.finished() }
    }
}
