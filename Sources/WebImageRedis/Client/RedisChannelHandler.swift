import NIOCore

/// Commands written to the channel with the promises their replies fulfil, in order.
struct RedisOutbound: Sendable {
    var bytes: ByteBuffer
    var replies: [EventLoopPromise<RESPValue>]
}

/// Matches replies to commands first in, first out (Redis answers a connection's commands in the
/// order it read them, which is what makes pipelining safe), and fails every pending reply when
/// the channel goes. In subscriber mode, `message` pushes go to `onPush` instead.
final class RedisChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisOutbound
    typealias OutboundOut = ByteBuffer

    private var pending = CircularBuffer<EventLoopPromise<RESPValue>>(initialCapacity: 16)
    private var closedError: (any Error)?
    private let onPush: (@Sendable (RESPValue) -> Void)?
    /// When the last reply arrived (or the first command since was written): a connection with
    /// replies owed and nothing read for a whole call timeout is stuck (``RedisConnection/closeIfStuck``).
    private(set) var lastProgress = NIODeadline.now()

    init(onPush: (@Sendable (RESPValue) -> Void)? = nil) { self.onPush = onPush }

    var pendingCount: Int { pending.count }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let outbound = unwrapOutboundIn(data)
        if let closedError {
            outbound.replies.forEach { $0.fail(closedError) }
            promise?.fail(closedError)
            return
        }
        if pending.isEmpty { lastProgress = .now() }
        pending.append(contentsOf: outbound.replies)
        context.write(wrapOutboundOut(outbound.bytes), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = unwrapInboundIn(data)
        lastProgress = .now()
        if let onPush, case .array(let parts) = value, parts.count == 3, parts[0].string == "message" {
            onPush(value)
            return
        }
        guard let promise = pending.popFirst() else {
            // A reply nobody asked for: the stream is out of step, and no later reply can be trusted.
            closedError = RedisError.protocolViolation("a reply with no command waiting for it")
            context.close(promise: nil)
            return
        }
        promise.succeed(value)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(closedError ?? RedisError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let redisError: RedisError = switch error {
        case let decoding as RESPDecodingError: .protocolViolation("\(decoding)")
        case let redis as RedisError: redis
        default: .connectionFailed("\(error)")
        }
        // Closed before the replies fail, so a caller retrying at once sees an inactive connection and gets a new one.
        if closedError == nil { closedError = redisError }
        context.close(promise: nil)
        failAll(redisError)
    }

    private func failAll(_ error: any Error) {
        if closedError == nil { closedError = error }
        while let promise = pending.popFirst() { promise.fail(error) }
    }
}
