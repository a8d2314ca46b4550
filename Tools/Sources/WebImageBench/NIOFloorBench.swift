import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import WebImage

/// `webimage-bench download --client nio`: a bare HTTP/1.1 client on SwiftNIO — `--concurrency`
/// keep-alive connections, each writing its next GET from the event loop as the last response
/// ends, bodies written as curl writes them. No redirects, timeouts or checks: it measures what a
/// lean client could cost per request, beside AsyncHTTPClient's floor (`--client ahc`). With a
/// `store` (`--client nio-store`) each body is structure-checked and stored in that disk cache
/// instead: the floor of a prefetch with WebImage's crash-safe store. Plain `http` URLs of one
/// host and port (the benchmark's origin).
enum NIOFloorBench {
    static func run(_ urls: [URL], concurrency: Int, out: String, store: DiskCache? = nil) async -> (failed: Int, bytes: Int) {
        guard let first = urls.first, let host = first.host else { return (urls.count, 0) }
        let port = first.port ?? 80
        let totals = await withCheckedContinuation { (continuation: CheckedContinuation<Totals, Never>) in
            let work = Work(urls: urls, out: out, host: host, port: port, store: store, done: continuation)
            for _ in 0..<min(concurrency, urls.count) { work.connect() }
        }
        return (totals.failed, totals.bytes)
    }

    struct Totals {
        var next = 0
        var ended = 0
        var failed = 0
        var bytes = 0
    }

    final class Work: Sendable {
        let urls: [URL]
        let out: String
        let host: String
        let port: Int
        let store: DiskCache?
        let totals = Mutex(Totals())
        let done: CheckedContinuation<Totals, Never>

        init(urls: [URL], out: String, host: String, port: Int, store: DiskCache?, done: CheckedContinuation<Totals, Never>) {
            (self.urls, self.out, self.host, self.port, self.store, self.done) = (urls, out, host, port, store, done)
        }

        func connect() {
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(Connection(work: self))
                    }
                }
            bootstrap.connect(host: host, port: port).whenFailure { [self] _ in
                while let _ = take() { ended(size: nil) }
            }
        }

        /// The next list position, or nil when all are handed out.
        func take() -> Int? {
            totals.withLock { totals in
                guard totals.next < urls.count else { return nil }
                defer { totals.next += 1 }
                return totals.next
            }
        }

        func ended(size: Int?) {
            let final = totals.withLock { totals -> Totals? in
                totals.ended += 1
                if let size { totals.bytes += size } else { totals.failed += 1 }
                return totals.ended == urls.count ? totals : nil
            }
            if let final { done.resume(returning: final) }
        }
    }

    /// One keep-alive connection: a request, its response, the next request.
    final class Connection: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        private let work: Work
        private var index: Int?
        private var status: HTTPResponseStatus = .ok
        private var body = ByteBuffer()
        private var validators: HTTPValidators?

        init(work: Work) { self.work = work }

        func channelActive(context: ChannelHandlerContext) {
            sendNext(context: context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = head.status
                validators = HTTPValidators(etag: head.headers.first(name: "etag"), lastModified: head.headers.first(name: "last-modified"))
                body.clear()
            case .body(var part):
                body.writeBuffer(&part)
            case .end:
                guard let index else { return }
                var size: Int?
                if status == .ok, let store = work.store {
                    let data = Data(body.readableBytesView)
                    if (try? ImageIntegrity.check(data)) != nil,
                       (try? store.store(data, forKey: work.urls[index].absoluteString, validators: validators)) != nil {
                        size = data.count
                    }
                } else if status == .ok {
                    let path = work.out + "/" + String(index) + "-" + work.urls[index].lastPathComponent
                    if (try? Data(body.readableBytesView).write(to: URL(fileURLWithPath: path))) != nil { size = body.readableBytes }
                }
                self.index = nil
                work.ended(size: size)
                sendNext(context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if index != nil { work.ended(size: nil) }
            index = nil
            context.close(promise: nil)
        }

        private func sendNext(context: ChannelHandlerContext) {
            guard let next = work.take() else { return context.close(promise: nil) }
            index = next
            let url = work.urls[next]
            var path = url.path.isEmpty ? "/" : url.path
            if let query = url.query { path += "?" + query }
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: ["Host": "\(work.host):\(work.port)"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
