import Foundation
import NIOPosix
import Synchronization
import Testing
@testable import WebImage

/// A prefetch through a downloader on the lean HTTP/1.1 client runs its loads on the client's
/// event loops, so a load resumes where its response arrived instead of waking a pool thread
/// (what `webimage prefetch` does); on AsyncHTTPClient the loads stay on the cooperative pool.
@Suite("ImagePrefetcher on the lean client's event loops")
struct PrefetchOnEventLoopsTests {
    private func prefetch(transport: DownloaderConfig.Transport) async throws -> (onEventLoop: [Bool], requests: [String]) {
        var result: ([Bool], [String]) = ([], [])
        try await withOrigin(over: transport, { $0.maxConcurrentDownloads = 4 }) { origin, downloader in
            origin.route("/p.png", .fixture("png-rgb.png"))
            origin.route("/gone.png", .status(404))
            let fixture = try ManagerFixture(loader: downloader)
            let heard = Mutex<[Bool]>([])
            var settings = ImagePrefetcher.Settings()
            settings.maxConcurrentPrefetchCount = 8
            settings.observer = { event in
                guard case .didPrefetch = event else { return }
                heard.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
            }
            let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
            let list = (0..<30).map { origin.url($0 % 10 == 9 ? "/gone.png?\($0)" : "/p.png?\($0)") }
            let (finished, skipped) = await prefetcher.prefetch(list)
            #expect((finished, skipped) == (30, 3))  // finished counts the skipped ones too (SD)
            for url in list where url.path == "/p.png" { #expect(await fixture.manager.cachedImageExists(for: url)) }
            result = (heard.withLock { $0 }, origin.requests.map(\.uri))
        }
        return result
    }

    @Test("on the lean client: every URL requested once, each outcome heard on an event loop, the good ones cached")
    func leanClient() async throws {
        let (onEventLoop, requests) = try await prefetch(transport: .http1)
        #expect(onEventLoop.count == 30)
        #expect(onEventLoop.allSatisfy { $0 })
        #expect(requests.count == 30 && Set(requests).count == 30)
    }

    @Test("on AsyncHTTPClient: the same outcome, heard off the event loops")
    func asyncHTTPClient() async throws {
        let (onEventLoop, requests) = try await prefetch(transport: .asyncHTTPClient)
        #expect(onEventLoop.count == 30)
        #expect(!onEventLoop.contains(true))
        #expect(requests.count == 30 && Set(requests).count == 30)
    }
}
