import Foundation
import NIOCore
import NIOHTTP1

/// One step of a scripted response; an ``OriginResponse`` becomes a list of these per request.
enum OriginStep {
    case head(status: Int, headers: [(String, String)])
    case body(Data)
    /// Bytes straight onto the connection, below the HTTP encoder — for what NIO's encoder would
    /// not send (it drops `Content-Length` from a 304, as it should).
    case raw(Data)
    case wait(TimeAmount)
    case waitFor(OriginGate)
    /// Zeros in `chunk`-byte writes every `interval`, until the client goes (bounded by `limit`).
    case trickle(chunk: Int, interval: TimeAmount, limit: Int)
    /// Ends the response; the connection stays open for the next request.
    case end
    /// Closes the connection (FIN) without ending the response.
    case close
    /// Resets the connection (RST, `SO_LINGER` 0).
    case reset
}

/// Serves one connection of a ``TestOrigin``: reads a request, runs its steps on the event loop,
/// then waits for the next. Everything here runs on the channel's event loop.
final class OriginHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let origin: TestOrigin
    private var head: HTTPRequestHead?
    private var isActive = true
    /// Set while a request is counted in flight, so it is uncounted exactly once.
    private var inFlightPath: String?

    init(origin: TestOrigin) { self.origin = origin }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let request = OriginRequest(
                method: "\(head.method)", uri: head.uri,
                path: String(head.uri.prefix { $0 != "?" }),
                headers: head.headers.map { (name: $0.name.lowercased(), value: $0.value) })
            inFlightPath = request.path
            let steps = origin.begin(request)
            run(steps[...], keepAlive: head.isKeepAlive, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        finishRequest()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func finishRequest() {
        if let path = inFlightPath {
            inFlightPath = nil
            origin.end(path)
        }
    }

    private func run(_ steps: ArraySlice<OriginStep>, keepAlive: Bool, context: ChannelHandlerContext) {
        guard isActive, let step = steps.first else { return }
        let rest = steps.dropFirst()
        let loop = context.eventLoop.assumeIsolated()
        switch step {
        case .head(let status, let headers):
            var fields = HTTPHeaders(headers)
            if !keepAlive { fields.replaceOrAdd(name: "connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            run(rest, keepAlive: keepAlive, context: context)
        case .body(let data):
            if !data.isEmpty {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: data)))), promise: nil)
            }
            run(rest, keepAlive: keepAlive, context: context)
        case .raw(let data):
            let below = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            below?.writeAndFlush(NIOAny(ByteBuffer(bytes: data)), promise: nil)
            run(rest, keepAlive: keepAlive, context: context)
        case .wait(let delay):
            loop.scheduleTask(in: delay) { self.run(rest, keepAlive: keepAlive, context: context) }
        case .waitFor(let gate):
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            gate.whenOpen {
                eventLoop.execute {
                    let (handler, context) = bound.value
                    handler.run(rest, keepAlive: keepAlive, context: context)
                }
            }
        case .trickle(let chunk, let interval, let limit):
            guard limit > 0 else { return run(rest, keepAlive: keepAlive, context: context) }
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(repeating: 0, count: chunk)))), promise: nil)
            let next = [OriginStep.trickle(chunk: chunk, interval: interval, limit: limit - chunk)] + rest
            loop.scheduleTask(in: interval) { self.run(next[...], keepAlive: keepAlive, context: context) }
        case .end:
            let promise = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
            finishRequest()
            if !keepAlive { promise.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
            if case .close? = rest.first { promise.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) } }
        case .close:
            finishRequest()
            context.close(promise: nil)
        case .reset:
            finishRequest()
            let channel = context.channel
            if let provider = channel as? any SocketOptionProvider {
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }
}
