import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOSSL
import Synchronization

/// One download on ``HTTP1Transport``: the request, its redirect hops (``RedirectChain``, at most
/// ``HTTP1Transport/maximumRedirects``), and the
/// ``TransferTask`` its transfer stops it through. Ends exactly once: the transfer hears
/// `finished()` or `failed(_:)`.
final class HTTP1Exchange: TransferTask {
    private struct State {
        var request: DownloadRequest
        var redirects: RedirectChain
        var connection: HTTP1Connection?
        var retried = false
        var receivedHead = false
        var keepAlive = true
        /// Where the response in flight redirects, and its status.
        var redirect: (target: URL, status: UInt)?
        var deadlineCheck: Scheduled<Void>?
        var failure: (any Error)?
        var isDone = false
    }

    let eventLoop: any EventLoop
    /// For `https` hops: set only to skip the certificate check (``DownloaderOptions/allowInvalidSSLCertificates``).
    let tlsConfiguration: TLSConfiguration?
    private let transfer: DownloadTransfer
    private let transport: HTTP1Transport
    private let state: Mutex<State>

    init(
        request: DownloadRequest, transfer: DownloadTransfer, transport: HTTP1Transport, eventLoop: any EventLoop,
        tlsConfiguration: TLSConfiguration?
    ) {
        self.tlsConfiguration = tlsConfiguration
        self.transfer = transfer
        self.transport = transport
        self.eventLoop = eventLoop
        state = Mutex(State(request: request, redirects: RedirectChain(from: request.url, limit: transport.maximumRedirects)))
    }

    func start(deadline: NIODeadline?) {
        if let deadline {
            let check = eventLoop.scheduleTask(deadline: deadline) { [self] in fail(reason: HTTPClientError.deadlineExceeded) }
            let done = state.withLock { state in
                if !state.isDone { state.deadlineCheck = check }
                return state.isDone
            }
            if done { check.cancel() }
        }
        transfer.startIdleTimer(self)
        transport.send(self, to: state.withLock { $0.request.url })
    }

    /// The current hop's request.
    var request: DownloadRequest { state.withLock { $0.request } }

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
            let (url, redirect) = state.withLock { state -> (URL, (target: URL, status: UInt)?) in
                state.receivedHead = true
                state.keepAlive = head.keepAlive
                state.redirect = state.redirects.target(status: head.status, location: head.location, from: state.request.url)
                    .map { ($0, UInt(head.status)) }
                return (state.request.url, state.redirect)
            }
            transfer.visited(url, setCookies: head.fields[values: .setCookie])
            if redirect == nil { _ = transfer.headArrived(status: head.status, fields: head.fields, task: self) }
        case .body(let buffer):
            if state.withLock({ $0.redirect == nil && !$0.isDone }) { _ = transfer.bodyArrived(buffer, task: self) }
        case .end:
            let (reusable, redirect, done) = state.withLock { state in
                state.connection = nil
                // A response the transfer refused (status, type, size) had its connection closed.
                return (state.keepAlive && state.failure == nil && !state.isDone, state.redirect, state.isDone)
            }
            if reusable { transport.release(connection) } else { connection.close() }
            guard !done else { return }
            if let redirect { follow(redirect.target, status: redirect.status) } else { end(nil) }
        }
    }

    /// The connection closed (or was found closed) before the response ended.
    func connectionEnded(reused: Bool, error: any Error) {
        let retry = state.withLock { state -> URL? in
            state.connection = nil
            // A kept-alive connection the server closed before answering: once more on a fresh one.
            guard !state.isDone, reused, !state.receivedHead, !state.retried, state.failure == nil else { return nil }
            state.retried = true
            return state.request.url
        }
        if let retry { return transport.send(self, to: retry) }
        end(error)
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

    private func end(_ error: (any Error)?) {
        let (first, failure, check) = state.withLock { state in
            defer { state.isDone = true; state.deadlineCheck = nil }
            return (!state.isDone, state.failure, state.deadlineCheck)
        }
        check?.cancel()
        guard first else { return }
        if let error = failure ?? error { transfer.failed(error) } else { transfer.finished() }
    }

    private func follow(_ target: URL, status: UInt) {
        let next = state.withLock { state -> Result<DownloadRequest, HTTPClientError> in
            let next = state.redirects.follow(state.request, to: target, status: status)
            if case .success(let request) = next {
                state.request = request
                state.redirect = nil
            }
            return next
        }
        switch next {
        case .failure(let error): end(error)
        case .success(let request): transport.send(self, to: request.url)
        }
    }
}
