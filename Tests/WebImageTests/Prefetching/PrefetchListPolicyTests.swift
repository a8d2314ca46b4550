import Foundation
import Synchronization
import Testing
@testable import WebImage

/// SDWebImage 4's prefetcher beside WebImage's: what a second list and `cancelPrefetching` do
/// (``ImagePrefetcher/ListPolicy``), and `requestedCount`.
@Suite("ImagePrefetcher: SD 4's lists and counts")
struct PrefetchListPolicyTests {
    /// `count` routes held by `gate`, under `prefix`.
    private func gatedList(_ origin: TestOrigin, _ gate: OriginGate, _ prefix: String, count: Int) -> [URL] {
        (0..<count).map { index in
            origin.route("/\(prefix)\(index).png", .gated(gate, .fixture("png-rgb.png")))
            return origin.url("/\(prefix)\(index).png")
        }
    }

    @Test("requestedCount counts the requests started (SD 4's reading), not the URLs listed", arguments: DownloaderConfig.Transport.carriers)
    func requestedCount(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let gate = OriginGate()
            defer { gate.open() }
            let done = Mutex<(Int, Int)?>(nil)
            let token = ImagePrefetcher(manager: manager).prefetch(
                gatedList(origin, gate, "q", count: 10), completed: { f, s in done.withLock { $0 = (f, s) } })
            #expect(await eventually { origin.inFlightRequests == 3 })
            #expect(token.requestedCount == 3 && token.finishedCount == 0 && token.totalCount == 10)
            gate.open()
            #expect(await eventually { done.withLock { $0 } != nil })
            #expect(token.requestedCount == 10)
        }
    }

    @Test("side by side (default): a second list runs beside the first; cancelPrefetching stops the prefetcher's loads, never the manager's own",
          arguments: DownloaderConfig.Transport.carriers)
    func sideBySide(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let gate = OriginGate()
            defer { gate.open() }
            let prefetcher = ImagePrefetcher(manager: manager)
            let onScreen = ManagerAnswers()
            manager.loadImage(with: gatedList(origin, gate, "screen", count: 1)[0]) { onScreen.record($0) }
            let first = prefetcher.prefetch(gatedList(origin, gate, "a", count: 4), completed: nil)
            let second = prefetcher.prefetch(gatedList(origin, gate, "b", count: 2), completed: nil)
            #expect(await eventually { origin.inFlightRequests == 4 })
            #expect(prefetcher.runningCount == 2 && !first.isCancelled && !second.isCancelled)
            prefetcher.cancelPrefetching()
            #expect(first.isCancelled && second.isCancelled && prefetcher.runningCount == 0)
            gate.open()
            #expect(await eventually { onScreen.count == 1 })
            #expect((try? onScreen.last?.get()) != nil, "the manager's own load went on")
        }
    }

    @Test("replacing (SD 4): a new list cancels the running one, and cancelPrefetching cancels the manager's loads too ([manager cancelAll])",
          arguments: DownloaderConfig.Transport.carriers)
    func replacing(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let gate = OriginGate()
            defer { gate.open() }
            var settings = ImagePrefetcher.Settings()
            settings.lists = .replacing
            let prefetcher = ImagePrefetcher(manager: manager, settings: settings)
            let completions = Mutex<[String: (Int, Int)]>([:])
            let first = prefetcher.prefetch(gatedList(origin, gate, "a", count: 4), completed: { f, s in completions.withLock { $0["first"] = (f, s) } })
            #expect(await eventually { origin.inFlightRequests == 3 })
            let onScreen = ManagerAnswers()
            manager.loadImage(with: gatedList(origin, gate, "screen", count: 1)[0]) { onScreen.record($0) }

            let second = prefetcher.prefetch(gatedList(origin, gate, "b", count: 2), completed: { f, s in completions.withLock { $0["second"] = (f, s) } })
            #expect(first.isCancelled && !second.isCancelled && prefetcher.runningCount == 1)
            #expect(onScreen.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
            gate.open()
            #expect(await eventually { completions.withLock { $0["second"] } != nil })
            #expect(completions.withLock { $0["second"] }.map { $0 == (2, 0) } == true)
            #expect(completions.withLock { $0["first"] } == nil, "a replaced list never completes")

            let held = OriginGate()
            defer { held.open() }
            let third = prefetcher.prefetch(gatedList(origin, held, "c", count: 2), completed: nil)
            let another = ManagerAnswers()
            manager.loadImage(with: gatedList(origin, held, "held", count: 1)[0]) { another.record($0) }
            prefetcher.cancelPrefetching()
            #expect(third.isCancelled)
            #expect(another.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
        }
    }
}
