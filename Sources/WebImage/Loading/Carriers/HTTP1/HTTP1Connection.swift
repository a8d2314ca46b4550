import NIOCore
import Synchronization

/// One keep-alive connection of ``HTTP1Transport``: carries one ``HTTP1Exchange`` at a time and
/// hands it every response part, then goes back to the pool (or closes) when the response ends.
final class HTTP1Connection: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    typealias IdleCheck = HTTP1ConnectionState.IdleCheck

    /// The pool's key: origin, pinned address, certificate check.
    let key: HTTP1Transport.PoolKey
    let eventLoop: any EventLoop
    private let transport: HTTP1Transport
    private let state = Mutex(HTTP1ConnectionState())
    private let parser = Mutex(HTTP1ResponseParser())

    init(key: HTTP1Transport.PoolKey, transport: HTTP1Transport, eventLoop: any EventLoop) {
        self.key = key
        self.transport = transport
        self.eventLoop = eventLoop
    }

    /// Writes the exchange's request; a connection found closed hands it back at once.
    func send(_ exchange: HTTP1Exchange) {
        let channel: any Channel
        switch state.withLock({ $0.take(exchange) }) {
        case .send(let open): channel = open
        // Closed before the request went out: what closed it (a failed TLS handshake) is the answer.
        case .closed(let reused, let error): return exchange.connectionEnded(reused: reused, error: error ?? ChannelError.ioOnClosedChannel)
        }
        // Attached before the request goes out: its response may arrive before this returns.
        guard exchange.attach(self) else {
            state.withLock { $0.untaken() }
            return transport.release(self)  // the exchange ended meanwhile; nothing was sent
        }
        let request = exchange.request
        parser.requestWritten(request)
        channel.writeAndFlush(request.http1Bytes(allocator: channel.allocator), promise: nil)
    }

    /// Its exchange's response ended; `reusable`: the exchange would have it carry another.
    func responseEnded(reusable: Bool) {
        if state.withLock({ $0.responseEnded(reusable: reusable) }) { transport.release(self) } else { close() }
    }

    /// Marks the connection back in the pool from now; `true` when no idle timer is pending and
    /// the caller must arm one.
    func becameIdle() -> Bool {
        state.withLock { $0.pooled(now: .now()) }
    }

    /// The idle timer fired: whether the connection has been idle for `timeout`.
    func idleCheck(timeout: TimeAmount) -> IdleCheck {
        state.withLock { $0.idleCheck(now: .now(), timeout: timeout) }
    }

    /// Closes the connection; from now on it takes no request (one sent meanwhile comes back at once).
    func close() {
        state.withLock { $0.close() }?.close(promise: nil)
    }

    /// Whether it may go back to the pool.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    // MARK: ChannelInboundHandler

    func handlerAdded(context: ChannelHandlerContext) {
        state.withLock { $0.opened(context.channel) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let (events, failure) = parser.parse(unwrapInboundIn(data))
        // Unreadable bytes after a complete response: the connection must not go back to the
        // pool with that response's end, only to be closed under the next request.
        if let failure { _ = state.withLock { $0.close(failing: failure) } }
        events.forEach(received)
        if failure != nil { context.close(promise: nil) }
    }

    private func received(_ part: HTTP1ResponseParser.Event) {
        state.withLock { $0.exchange }?.received(part, on: self)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.withLock { $0.failed(error) }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let (events, failure) = parser.close(failed: state.withLock { $0.error } != nil)
        events.forEach(received)
        if let failure { state.withLock { $0.failed(failure) } }
        let (exchange, reused, error) = state.withLock { $0.inactive() }
        guard let exchange else { return transport.forget(self) }
        exchange.connectionEnded(reused: reused, error: error ?? ChannelError.eof)
    }
}
