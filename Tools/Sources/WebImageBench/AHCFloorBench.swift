import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// `webimage-bench download --client ahc`: AsyncHTTPClient alone — a delegate that only collects
/// the body, the next request started from the event loop the last one ended on, each body written
/// as curl writes it. No WebImage code runs per image, so this is the floor ImageDownloader sits on: what
/// a bulk download would cost if everything above the HTTP client were free.
enum AHCFloorBench {
    static func run(_ urls: [URL], concurrency: Int, out: String) async -> (failed: Int, bytes: Int) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let totals = await withCheckedContinuation { (continuation: CheckedContinuation<Run.Totals, Never>) in
            guard !urls.isEmpty else { return continuation.resume(returning: Run.Totals()) }
            let run = Run(urls: urls, out: out, client: client, done: continuation)
            for _ in 0..<min(concurrency, urls.count) { run.startNext() }
        }
        try? await client.shutdown()
        return (totals.failed, totals.bytes)
    }

    private final class Run: Sendable {
        struct Totals {
            var next = 0
            var ended = 0
            var failed = 0
            var bytes = 0
        }

        let urls: [URL]
        let out: String
        let client: HTTPClient
        let totals = Mutex(Totals())
        let done: CheckedContinuation<Totals, Never>

        init(urls: [URL], out: String, client: HTTPClient, done: CheckedContinuation<Totals, Never>) {
            self.urls = urls
            self.out = out
            self.client = client
            self.done = done
        }

        func startNext() {
            let index = totals.withLock { totals -> Int? in
                guard totals.next < urls.count else { return nil }
                defer { totals.next += 1 }
                return totals.next
            }
            guard let index else { return }
            guard let request = try? HTTPClient.Request(url: urls[index]) else { return ended(size: nil) }
            client.execute(request: request, delegate: BodyCollector()).futureResult.whenComplete { [self] result in
                var size: Int?
                if case .success(let buffer) = result {
                    let path = out + "/" + String(index) + "-" + urls[index].lastPathComponent
                    // A plain write, as the webimage client of this command and curl -o do.
                    if (try? Data(buffer.readableBytesView).write(to: URL(fileURLWithPath: path))) != nil {
                        size = buffer.readableBytes
                    }
                }
                ended(size: size)
            }
        }

        private func ended(size: Int?) {
            let final = totals.withLock { totals -> Totals? in
                totals.ended += 1
                if let size { totals.bytes += size } else { totals.failed += 1 }
                return totals.ended == urls.count ? totals : nil
            }
            if let final { done.resume(returning: final) } else { startNext() }
        }
    }

    /// Keeps the body; nothing else.
    private final class BodyCollector: HTTPClientResponseDelegate {
        typealias Response = ByteBuffer
        private let buffer = Mutex(ByteBuffer())

        func didReceiveBodyPart(task: HTTPClient.Task<ByteBuffer>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
            buffer.withLock { buffer in
                var part = part
                buffer.writeBuffer(&part)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<ByteBuffer>) throws -> ByteBuffer {
            buffer.withLock { $0 }
        }
    }
}
