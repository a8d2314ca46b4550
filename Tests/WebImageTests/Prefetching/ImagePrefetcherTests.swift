import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Progress values and the completion of one prefetch call.
private final class PrefetchLog: Sendable {
    let progress = Mutex<[(Int, Int)]>([])
    let completions = Mutex<[(Int, Int)]>([])
    let events = Mutex<[ImagePrefetcher.Event]>([])
}

@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    private func urls(_ fixture: ManagerFixture, count: Int, broken: Set<Int> = []) throws -> [URL] {
        try (0..<count).map { index in
            if broken.contains(index) { return fixture.directory.appendingPathComponent("missing-\(index).png") }
            return try fixture.file("png-rgb.png", as: "image-\(index).png")
        }
    }

    @Test("every URL is loaded into the cache; progress is monotonic; completion (finished, skipped) once")
    func prefetchAll() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let prefetcher = ImagePrefetcher(manager: fixture.manager)
        let list = try urls(fixture, count: 12, broken: [3, 7])
        let log = PrefetchLog()
        prefetcher.prefetch(list, progress: { f, t in log.progress.withLock { $0.append((f, t)) } },
                            completed: { f, s in log.completions.withLock { $0.append((f, s)) } })
        #expect(await eventually { log.completions.withLock { $0.count } == 1 })
        let completion = try #require(log.completions.withLock { $0.first })
        #expect(completion == (12, 2))
        let progress = log.progress.withLock { $0 }
        #expect(progress.map(\.0) == Array(1...12))
        #expect(progress.allSatisfy { $0.1 == 12 })
        for (index, url) in list.enumerated() where ![3, 7].contains(index) {
            #expect(await fixture.manager.cachedImageExists(for: url))
        }
        #expect(await eventually { prefetcher.runningCount == 0 })
    }

    @Test("SD 4's order: each URL's progress callback, then the observer; didFinish before the completion")
    func progressThenObserver() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let order = Mutex<[String]>([])
        var settings = ImagePrefetcher.Settings()
        settings.observer = { event in
            switch event {
            case .didPrefetch: order.withLock { $0.append("didPrefetch") }
            case .didFinish: order.withLock { $0.append("didFinish") }
            }
        }
        let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
        let list = try urls(fixture, count: 5, broken: [2])
        prefetcher.prefetch(list, progress: { _, _ in order.withLock { $0.append("progress") } },
                            completed: { _, _ in order.withLock { $0.append("completed") } })
        #expect(await eventually { order.withLock { $0.last } == "completed" })
        #expect(order.withLock { $0 } == Array(repeating: ["progress", "didPrefetch"], count: 5).flatMap { $0 } + ["didFinish", "completed"])
    }

    @Test("a list with repeats costs one load per distinct URL, with a window of 1 or 16; a failed URL fails each time it is listed",
          arguments: [1, 16])
    func repeatsLoadOnce(window: Int) async throws {
        let loader = CountingLoader()
        let fixture = try ManagerFixture(loader: loader)
        var settings = ImagePrefetcher.Settings()
        settings.maxConcurrentPrefetchCount = window
        settings.context.queryCacheType = .none  // as the CLI: only the repeat rule can save a load
        let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
        let good = try fixture.file("png-rgb.png", as: "good.png")
        let missing = fixture.directory.appendingPathComponent("missing.png")
        let list = (0..<50).flatMap { _ in [good, missing] }
        let result = await prefetcher.prefetch(list)
        #expect(result == (100, 50))
        #expect(loader.counter.count == 2)
    }

    @Test("an empty list completes with (0, 0)")
    func emptyList() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let prefetcher = ImagePrefetcher(manager: fixture.manager)
        let log = PrefetchLog()
        prefetcher.prefetch([], completed: { f, s in log.completions.withLock { $0.append((f, s)) } })
        #expect(await eventually { log.completions.withLock { $0.count } == 1 })
        #expect(log.completions.withLock { $0.first }.map { $0 == (0, 0) } == true)
        #expect(await prefetcher.prefetch([]) == (0, 0))
    }

    @Test("a cancelled token never completes and stops its loads, even when the held responses arrive afterwards", arguments: DownloaderConfig.Transport.carriers)
    func cancelToken(_ carrier: DownloaderConfig.Transport) async throws {
        try await withManager(over: carrier) { origin, manager, _ in
            let gate = OriginGate()
            defer { gate.open() }
            let list = (0..<20).map { index -> URL in
                origin.route("/p\(index).png", .gated(gate, .fixture("png-rgb.png")))
                return origin.url("/p\(index).png")
            }
            let prefetcher = ImagePrefetcher(manager: manager)
            let log = PrefetchLog()
            let token = prefetcher.prefetch(list, progress: { f, t in log.progress.withLock { $0.append((f, t)) } },
                                            completed: { f, s in log.completions.withLock { $0.append((f, s)) } })
            #expect(await eventually { origin.inFlightRequests == 3 })
            token.cancel()
            gate.open()
            #expect(await eventually { origin.inFlightRequests == 0 && manager.sharedLoads.count == 0 && !manager.isRunning })
            #expect(log.completions.withLock { $0.isEmpty })
            #expect(log.progress.withLock { $0.isEmpty })
            #expect(token.isCancelled)
            #expect(token.finishedCount == 0)
            #expect(origin.requests.count == 3, "no load started after the cancel")
            #expect(prefetcher.runningCount == 0)
        }
    }

    @Test("cancelPrefetching cancels every running token")
    func cancelAll() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let prefetcher = ImagePrefetcher(manager: fixture.manager)
        // Lists made first: writing files between the calls gave early tokens time to finish.
        let all = try urls(fixture, count: 300)
        let lists = [Array(all[0..<100]), Array(all[100..<200]), Array(all[200..<300])]
        let tokens = lists.map { prefetcher.prefetch($0, completed: nil) }
        prefetcher.cancelPrefetching()
        #expect(tokens.allSatisfy { $0.isCancelled || $0.finishedCount == $0.totalCount })
        #expect(tokens.contains { $0.isCancelled })
        #expect(prefetcher.runningCount == 0)
    }

    @Test("the observer hears each URL with counts summed over tokens, then didFinish once with every URL as the total (SD 4's totalCount there is total - skipped)")
    func observer() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let log = PrefetchLog()
        var settings = ImagePrefetcher.Settings()
        settings.observer = { event in log.events.withLock { $0.append(event) } }
        let prefetcher = ImagePrefetcher(manager: fixture.manager, settings: settings)
        let first = try urls(fixture, count: 5, broken: [0])
        let second = try (0..<4).map { try fixture.file("png-gray.png", as: "gray-\($0).png") }
        prefetcher.prefetch(first, completed: nil)
        prefetcher.prefetch(second, completed: nil)
        #expect(await eventually {
            log.events.withLock { $0.contains { if case .didFinish = $0 { true } else { false } } }
        })
        let events = log.events.withLock { $0 }
        let prefetched = events.compactMap { if case .didPrefetch(_, _, let f, let t) = $0 { (f, t) } else { nil } }
        #expect(prefetched.count == 9)
        #expect(prefetched.allSatisfy { $0.0 <= $0.1 && $0.1 <= 9 })
        #expect(prefetched.map(\.0).max() == 9)
        let finishes = events.compactMap { if case .didFinish(let t, let s) = $0 { (t, s) } else { nil } }
        #expect(finishes.count == 1)
        #expect(finishes.first.map { $0.0 } == 9)
        #expect(finishes.first.map { $0.1 } == 1)
    }

    @Test("the async form returns (finished, skipped)")
    func asyncForm() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let prefetcher = ImagePrefetcher(manager: fixture.manager)
        let result = await prefetcher.prefetch(try urls(fixture, count: 6, broken: [5]))
        #expect(result == (6, 1))
    }

    @Test("loads go at low priority by default")
    func lowPriority() {
        #expect(ImagePrefetcher.Settings().options.contains(.lowPriority))
        #expect(ImagePrefetcher.Settings().maxConcurrentPrefetchCount == 3)
    }
}
