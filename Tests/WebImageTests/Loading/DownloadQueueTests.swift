import Foundation
import Testing
@testable import WebImage

@Suite("Download queue: limit, order, priority, suspend")
struct DownloadQueueTests {
    @Test("the origin never sees more requests in flight than maxConcurrentDownloads", arguments: DownloaderConfig.Transport.carriers)
    func concurrencyLimit(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.maxConcurrentDownloads = 3 }) { origin, downloader in
            let gate = OriginGate()
            origin.route("/q.png", .gated(gate, .fixture("png-rgb.png")))
            let recorders = (0..<12).map { downloader.record(origin.url("/q.png?\($0)")).recorder }
            #expect(await eventually { origin.requestCount("/q.png") == 3 })
            #expect(downloader.currentDownloadCount == 12)
            gate.open()
            for recorder in recorders { _ = await recorder.value() }
            #expect(origin.requestCount("/q.png") == 12)
            #expect(origin.maxConcurrentRequests == 3)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    /// Holds the single slot with a gated request, queues `names`, then — while they wait — the
    /// `joiners` (callers of names already queued), opens the gate, and returns the order in which
    /// the origin saw them.
    private func order(
        _ executionOrder: DownloaderConfig.ExecutionOrder, names: [(String, DownloaderOptions)],
        joiners: [(String, DownloaderOptions)] = [], over carrier: DownloaderConfig.Transport
    ) async throws -> [String] {
        var seen: [String] = []
        // About order, not timeouts: a long idle timeout, so no hold-up of the suite's threads ends a download.
        try await withOrigin(over: carrier, {
            $0.maxConcurrentDownloads = 1; $0.executionOrder = executionOrder; $0.downloadTimeout = TestTiming.seconds(300)
        }) { origin, downloader in
            let gate = OriginGate()
            origin.route("/hold", .gated(gate, .fixture("png-rgb.png")))
            for (name, _) in names { origin.route("/\(name)", .fixture("png-rgb.png")) }
            let hold = downloader.record(origin.url("/hold")).recorder
            #expect(await eventually { origin.requestCount("/hold") == 1 })
            let recorders = (names + joiners).map { downloader.record(origin.url("/\($0.0)"), options: $0.1).recorder }
            // Each caller's task starts awaiting its run on its own schedule.
            #expect(await eventually {
                downloader.downloads.waiting == names.count + joiners.count + 1 && downloader.downloads.count == names.count + 1
            })
            gate.open()
            _ = await hold.value()
            for recorder in recorders { _ = await recorder.value() }
            seen = origin.requestOrder.filter { $0 != "/hold" }.map { String($0.dropFirst()) }
        }
        return seen
    }

    @Test("FIFO with concurrency 1 starts in request order", arguments: DownloaderConfig.Transport.carriers)
    func fifo(_ carrier: DownloaderConfig.Transport) async throws {
        #expect(try await order(.fifo, names: [("a", []), ("b", []), ("c", []), ("d", [])], over: carrier) == ["a", "b", "c", "d"])
    }

    @Test("LIFO with concurrency 1 starts the newest first", arguments: DownloaderConfig.Transport.carriers)
    func lifo(_ carrier: DownloaderConfig.Transport) async throws {
        #expect(try await order(.lifo, names: [("a", []), ("b", []), ("c", []), ("d", [])], over: carrier) == ["d", "c", "b", "a"])
    }

    @Test("high priority jumps the queue, low priority waits for everything else", arguments: DownloaderConfig.Transport.carriers)
    func priorities(_ carrier: DownloaderConfig.Transport) async throws {
        let names: [(String, DownloaderOptions)] = [("low", .lowPriority), ("a", []), ("high", .highPriority), ("b", [])]
        #expect(try await order(.fifo, names: names, over: carrier) == ["high", "a", "b", "low"])
    }

    @Test("a high-priority caller joining a queued low-priority download moves it up; a low-priority joiner never moves one down", arguments: DownloaderConfig.Transport.carriers)
    func joinRaisesPriority(_ carrier: DownloaderConfig.Transport) async throws {
        let names: [(String, DownloaderOptions)] = [("low", .lowPriority), ("a", []), ("b", []), ("high", .highPriority)]
        let joiners: [(String, DownloaderOptions)] = [("low", .highPriority), ("high", .lowPriority)]
        #expect(try await order(.fifo, names: names, joiners: joiners, over: carrier) == ["high", "low", "a", "b"])
    }

    @Test("suspended: nothing starts until resumed", arguments: DownloaderConfig.Transport.carriers)
    func suspendResume(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/s.png", .fixture("png-rgb.png"))
            downloader.isSuspended = true
            let recorder = downloader.record(origin.url("/s.png")).recorder
            #expect(await recorder.completionCount(after: .milliseconds(50)) == 0)
            #expect(origin.requestCount("/s.png") == 0)
            #expect(downloader.currentDownloadCount == 1)
            downloader.isSuspended = false
            _ = await recorder.value()
            #expect(origin.requestCount("/s.png") == 1)
        }
    }

    @Test("cancelAllDownloads answers every caller, queued or running, with 2002", arguments: DownloaderConfig.Transport.carriers)
    func cancelAll(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.maxConcurrentDownloads = 2 }) { origin, downloader in
            let gate = OriginGate()
            origin.route("/x.png", .gated(gate, .fixture("png-rgb.png")))
            let recorders = (0..<5).map { downloader.record(origin.url("/x.png?\($0)")).recorder }
            #expect(await eventually { origin.requestCount("/x.png") == 2 })
            downloader.cancelAllDownloads()
            for recorder in recorders { #expect(await recorder.error() == .cancelled) }
            #expect(downloader.currentDownloadCount == 0)
            gate.open()
            try await Task.sleep(for: .milliseconds(20))
            #expect(recorders.allSatisfy { $0.completionCount == 1 })
            #expect(origin.requestCount("/x.png") == 2)
        }
    }

    @Test("raising maxConcurrentDownloads starts waiting downloads at once", arguments: DownloaderConfig.Transport.carriers)
    func raiseLimit(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.maxConcurrentDownloads = 1 }) { origin, downloader in
            let gate = OriginGate()
            origin.route("/w.png", .gated(gate, .fixture("png-rgb.png")))
            let recorders = (0..<4).map { downloader.record(origin.url("/w.png?\($0)")).recorder }
            #expect(await eventually { origin.requestCount("/w.png") == 1 })
            downloader.maxConcurrentDownloads = 4
            #expect(await eventually { origin.requestCount("/w.png") == 4 })
            gate.open()
            for recorder in recorders { _ = await recorder.value() }
        }
    }
}
