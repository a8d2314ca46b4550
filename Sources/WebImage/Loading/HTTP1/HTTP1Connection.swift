import NIOCore
import Synchronization

/// One keep-alive connection of ``HTTP1Transport``: carries one ``HTTP1Exchange`` at a time and
/// hands it every response part, then goes back to the pool (or closes) when the response ends.
final class HTTP1Connection: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct State {
        var channel: (any Channel)?
        var exchange: HTTP1Exchange?
        /// Responses this connection completed: a request that finds it closed after one may be retried.
        var served = 0
        var error: (any Error)?
        var isClosed = false
        /// When it last went back to the pool; nil while it carries a request.
        var idleSince: NIODeadline?
        /// An idle timer is pending: one per connection, however often it goes back to the pool.
        var idleTimerArmed = false
    }

    /// What the idle timer finds when it fires.
    enum IdleCheck {
        /// Idle for the whole timeout: to be closed.
        case expired
        /// Idle, but for less than the timeout: check again after this long.
        case recheck(TimeAmount)
        /// Carrying a request: the next return to the pool arms a timer again.
        case busy
    }

    /// `host:port`, the pool's key.
    let key: String
    let eventLoop: any EventLoop
    private let transport: HTTP1Transport
    private let state = Mutex(State())
    private let parser = Mutex(HTTP1ResponseParser())

    init(key: String, transport: HTTP1Transport, eventLoop: any EventLoop) {
        self.key = key
        self.transport = transport
        self.eventLoop = eventLoop
    }

    /// Writes the exchange's request; a connection found closed hands it back at once.
    func send(_ exchange: HTTP1Exchange) {
        let (channel, reused, closedBy) = state.withLock { state -> ((any Channel)?, Bool, (any Error)?) in
            guard !state.isClosed, let channel = state.channel else { return (nil, state.served > 0, state.error) }
            state.exchange = exchange
            state.error = nil
            state.idleSince = nil
            return (channel, state.served > 0, nil)
        }
        // Closed before the request went out: what closed it (a failed TLS handshake) is the answer.
        guard let channel else { return exchange.connectionEnded(reused: reused, error: closedBy ?? ChannelError.ioOnClosedChannel) }
        // Attached before the request goes out: its response may arrive before this returns.
        guard exchange.attach(self) else {
            state.withLock { $0.exchange = nil }
            return transport.release(self)  // the exchange ended meanwhile; nothing was sent
        }
        let request = exchange.request
        parser.requestWritten(request)
        channel.writeAndFlush(request.http1Bytes(allocator: channel.allocator), promise: nil)
    }

    /// Marks the connection idle from now; `true` when no idle timer is pending and the caller
    /// must arm one.
    func becameIdle() -> Bool {
        state.withLock { state in
            state.idleSince = .now()
            defer { state.idleTimerArmed = true }
            return !state.idleTimerArmed
        }
    }

    /// The idle timer fired: whether the connection has been idle for `timeout`. Only
    /// ``IdleCheck/recheck(_:)`` leaves the timer armed.
    func idleCheck(timeout: TimeAmount) -> IdleCheck {
        state.withLock { state in
            guard let since = state.idleSince, !state.isClosed else {
                state.idleTimerArmed = false
                return .busy
            }
            let idle = NIODeadline.now() - since
            guard idle < timeout else {
                state.idleTimerArmed = false
                return .expired
            }
            return .recheck(timeout - idle)
        }
    }

    /// Closes the connection; from now on it takes no request (one sent meanwhile comes back at once).
    func close() {
        let channel = state.withLock { state in
            state.isClosed = true
            return state.channel
        }
        channel?.close(promise: nil)
    }

    /// Whether it may go back to the pool.
    var isOpen: Bool { state.withLock { !$0.isClosed } }

    // MARK: ChannelInboundHandler

    func handlerAdded(context: ChannelHandlerContext) {
        state.withLock { $0.channel = context.channel }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let (events, failure) = parser.parse(unwrapInboundIn(data))
        // Unreadable bytes after a complete response: the connection must not go back to the
        // pool with that response's end, only to be closed under the next request.
        if let failure { state.withLock { $0.isClosed = true; $0.error = $0.error ?? failure } }
        events.forEach(received)
        if failure != nil { context.close(promise: nil) }
    }

    private func received(_ part: HTTP1ResponseParser.Event) {
        guard let exchange = state.withLock({ $0.exchange }) else { return }
        if case .end = part {
            state.withLock { state in
                state.exchange = nil
                state.served += 1
            }
        }
        exchange.received(part, on: self)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        state.withLock { $0.error = $0.error ?? error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let (events, failure) = parser.close(failed: state.withLock { $0.error } != nil)
        events.forEach(received)
        if let failure { state.withLock { $0.error = $0.error ?? failure } }
        let (exchange, error, reused) = state.withLock { state in
            state.isClosed = true
            state.channel = nil
            defer { state.exchange = nil }
            return (state.exchange, state.error, state.served > 0)
        }
        guard let exchange else { return transport.forget(self) }
        exchange.connectionEnded(reused: reused, error: error ?? ChannelError.eof)
    }
}
