import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// What one client connection may hold: how long its request head may take, how long it may idle
/// between requests, how large its head may be, and how many connections a listener keeps open.
/// A slow or unfinished head (slowloris) is closed after ``headerTimeout``; ``maxConnections``
/// bounds what even fast ones can hold.
public struct ConnectionLimits: Sendable, Hashable {
    /// Time from a connection's opening, or from the first byte of a later request, to the end of
    /// that request's head; past it the connection is closed.
    public var headerTimeout: Duration
    /// Time a kept-alive connection may wait for its next request; past it the connection is closed.
    public var idleTimeout: Duration
    /// Bytes of a request head (request line and fields); past it the answer is 431 and a close.
    public var maxHeaderBytes: Int
    /// Client connections open at once on one listener; one past it gets 503 and a close at once.
    public var maxConnections: Int

    public init(headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
                maxHeaderBytes: Int = 16 * 1024, maxConnections: Int = 1024) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxHeaderBytes = maxHeaderBytes
        self.maxConnections = maxConnections
    }
}

extension ImageServerConfiguration {
    /// This configuration's ``ConnectionLimits``, for `HTTPServerBuilder.guardedHTTP1(_:)`.
    public var connectionLimits: ConnectionLimits {
        ConnectionLimits(headerTimeout: headerTimeout, idleTimeout: idleTimeout,
                         maxHeaderBytes: maxHeaderBytes, maxConnections: maxConnections)
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server with `limits` held on every connection:
    /// `Application(router: router, server: .guardedHTTP1(configuration.connectionLimits), …)`.
    /// Each server built from it counts its own connections.
    public static func guardedHTTP1(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, limits: limits, open: OpenConnections())
        }
    }
}

/// The connections one listener has open (they live on every event loop of the group).
final class OpenConnections: Sendable {
    let count = Atomic<Int>(0)
}

/// Hummingbird's ``HTTP1Channel`` with a ``ConnectionGuardHandler`` before NIO's HTTP decoder (it
/// sees raw bytes) and a ``RequestPhaseHandler`` right after it (it sees where requests begin and end).
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let open: OpenConnections

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, open: OpenConnections) {
        // NIO's decoder limits are the backstop for what the guard's byte count cannot see (a head
        // pipelined behind a request in one read).
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = limits.maxHeaderBytes
        decoder.maxHeaderListSize = limits.maxHeaderBytes
        http1 = HTTP1Channel(responder: responder, configuration: HTTP1Channel.Configuration(
            idleTimeout: TimeAmount(limits.idleTimeout), httpDecoderConfiguration: decoder))
        self.limits = limits
        self.open = open
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // Runs on the channel's loop (NIO's child channel initializer), as HTTP1Channel's setup does.
        let guardHandler = ConnectionGuardHandler(limits: limits, open: open)
        do {
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            // NIO's own part types here (HTTPServerRequestPart): Hummingbird's come after its codec.
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestPhaseHandler(guardHandler: guardHandler), position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// First in the pipeline, on raw bytes: counts the connection against the listener's limit (503
/// and close past it), times the request head (close past ``ConnectionLimits/headerTimeout``) and
/// counts its bytes (431 and close past ``ConnectionLimits/maxHeaderBytes``). Loop-bound, as NIO handlers are.
final class ConnectionGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Phase {
        /// Between requests: the bytes that come are a head's.
        case awaitingHead
        /// A head arrived; its body and the answer are the request deadline's business.
        case inRequest
        /// Refused or timed out: input is dropped until the close completes.
        case closing
    }

    private let limits: ConnectionLimits
    private let open: OpenConnections
    private var counted = false
    private var phase = Phase.awaitingHead
    private var headBytes = 0
    private var headTimer: Scheduled<Void>?

    init(limits: ConnectionLimits, open: OpenConnections) {
        self.limits = limits
        self.open = open
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .closing:
            return
        case .awaitingHead:
            headBytes += unwrapInboundIn(data).readableBytes
            // A kept-alive connection's next head is timed from its first byte; until then it idles.
            if headTimer == nil { startHeadTimer(context: context) }
        case .inRequest:
            break
        }
        context.fireChannelRead(data)
        // After the decoder had its go: a head it completed in this read reset the count.
        if phase == .awaitingHead, headBytes > limits.maxHeaderBytes {
            refuse(context: context, status: "431 Request Header Fields Too Large")
        }
    }

    /// The decoder delivered a whole head.
    func headReceived() {
        phase = .inRequest
        headBytes = 0
        headTimer?.cancel()
        headTimer = nil
    }

    /// The request (head, body, end) has been read: what comes next is the next request's head.
    func requestRead() {
        guard phase == .inRequest else { return }
        phase = .awaitingHead
        headBytes = 0
    }

    private func opened(context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        let now = open.count.add(1, ordering: .relaxed).newValue
        guard now <= limits.maxConnections else {
            refuse(context: context, status: "503 Service Unavailable", retryAfter: true)
            return
        }
        // A new connection owes its first head within the header timeout, byte or no byte.
        startHeadTimer(context: context)
    }

    private func closed() {
        headTimer?.cancel()
        headTimer = nil
        guard counted else { return }
        counted = false
        open.count.subtract(1, ordering: .relaxed)
    }

    private func startHeadTimer(context: ChannelHandlerContext) {
        headTimer?.cancel()
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        headTimer = context.eventLoop.scheduleTask(in: TimeAmount(limits.headerTimeout)) {
            let (handler, context) = loopBound.value
            guard handler.phase == .awaitingHead else { return }
            handler.headTimer = nil
            handler.phase = .closing
            context.close(promise: nil)
        }
    }

    /// Answers `status` in raw bytes (the HTTP encoder is behind this handler) and closes.
    private func refuse(context: ChannelHandlerContext, status: String, retryAfter: Bool = false) {
        phase = .closing
        headTimer?.cancel()
        headTimer = nil
        let head = "HTTP/1.1 \(status)\r\ncontent-length: 0\r\nconnection: close\r\n" + (retryAfter ? "retry-after: 1\r\n" : "") + "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head)))
            .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Right after NIO's HTTP decoder: tells the ``ConnectionGuardHandler`` where a request's head and end
/// are, and closes a connection whose request is still sending a body when its answer is complete
/// (no route reads a body; a slow one must not hold the connection). Loop-bound.
final class RequestPhaseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let guardHandler: ConnectionGuardHandler
    private var requestOpen = false

    init(guardHandler: ConnectionGuardHandler) {
        self.guardHandler = guardHandler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestOpen = true
            guardHandler.headReceived()
        case .body:
            break
        case .end:
            requestOpen = false
            guardHandler.requestRead()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), requestOpen else {
            context.write(data, promise: promise)
            return
        }
        let written = promise ?? context.eventLoop.makePromise()
        context.writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

// Loop-bound: NIO's idiom for a handler that must never leave its event loop.
@available(*, unavailable)
extension ConnectionGuardHandler: Sendable {}

@available(*, unavailable)
extension RequestPhaseHandler: Sendable {}
