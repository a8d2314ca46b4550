import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Many callers, few URLs, random cancellation: the manager, downloader and caches must answer
/// every caller exactly once, leave nothing running and keep the memory cache within its limit.
/// The short run is always on; `WEBIMAGE_STRESS=1` adds issue 7's full run (10,000 loads over 500
/// URLs from 64 tasks, for up to 60 s).
@Suite("Stress: concurrent loads with random cancellation")
struct StressTests {
    struct Plan: Sendable {
        var loads: Int
        var urls: Int
        var tasks = 64
        var timeLimit: Duration
    }

    @Test("1,000 loads over 100 URLs from 64 tasks", arguments: DownloaderConfig.Transport.carriers)
    func short(_ carrier: DownloaderConfig.Transport) async throws {
        try await run(Plan(loads: 1_000, urls: 100, timeLimit: .seconds(30)), over: carrier)
    }

    @Test("10,000 loads over 500 URLs from 64 tasks for up to 60 s",
          .enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_STRESS"] == "1", "set WEBIMAGE_STRESS=1"),
          arguments: DownloaderConfig.Transport.carriers)
    func full(_ carrier: DownloaderConfig.Transport) async throws {
        try await run(Plan(loads: 10_000, urls: 500, timeLimit: .seconds(60)), over: carrier)
    }

    private static let fixtures = ["jpeg-baseline.jpg", "png-rgb.png", "png-interlaced.png", "webp-lossy.webp", "jpeg-progressive.jpg"]
    /// Small enough that the run evicts all the time, so the limit is really exercised.
    private static let costLimit = 256 * 1024

    private func run(_ plan: Plan, over carrier: DownloaderConfig.Transport) async throws {
        let origin = try await TestOrigin.start()
        var urls: [URL] = []
        for index in 0..<plan.urls {
            let name = Self.fixtures[index % Self.fixtures.count]
            let path = "/stress/\(index)-\(name)"
            // A quarter of the URLs answer late, so cancellations also land on requests in flight.
            origin.route(path, index % 4 == 0 ? .delayed(0.02, .fixture(name)) : .fixture(name))
            urls.append(origin.url(path))
        }
        var config = DownloaderConfig.forSpecs(carrier)
        config.cookieJar = CookieJar()
        config.downloadTimeout = 30  // a CPU-starved suite must not turn into timeouts
        let downloader = ImageDownloader(config: config)
        let directory = TemporaryFolder.url("stress")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ImageCache(directory: directory, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: Self.costLimit)))
        let manager = ImageManager(cache: cache, loader: ImageLoadersManager(loaders: [FileLoader(), DataURLLoader(), downloader]))

        let overLimit = Mutex(0)
        let monitor = Task {
            while !Task.isCancelled {
                if cache.memoryCache.totalCost > Self.costLimit { overLimit.withLock { $0 += 1 } }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let deadline = StressDeadline(plan.timeLimit)
        let urlList = urls
        let calls = await withTaskGroup(of: [StressCall].self) { group in
            for worker in 0..<plan.tasks {
                let share = plan.loads / plan.tasks + (worker < plan.loads % plan.tasks ? 1 : 0)
                group.addTask { await Self.work(share, urls: urlList, manager: manager, until: deadline) }
            }
            return await group.reduce(into: [StressCall]()) { $0 += $1 }
        }
        monitor.cancel()

        #expect(await eventually(timeout: .seconds(30)) { !manager.isRunning }, "no load left running")
        #expect(await eventually { downloader.currentDownloadCount == 0 }, "no download left running")
        #expect(await eventually { manager.sharedLoads.count == 0 }, "no shared load left behind")
        let violations = calls.compactMap(\.violation)
        #expect(violations.isEmpty, "\(violations.count) callers misanswered, e.g. \(violations.prefix(3))")
        #expect(cache.memoryCache.totalCost <= Self.costLimit)
        #expect(overLimit.withLock { $0 } == 0, "the memory cache stayed within its cost limit throughout")
        let cancelled = calls.filter(\.wasCancelled).count
        print("STRESS | \(calls.count) loads over \(plan.urls) URLs, \(cancelled) cancelled, \(origin.requests.count) requests, memory cost \(cache.memoryCache.totalCost) <= \(Self.costLimit)")
        #expect(calls.count == plan.loads || deadline.hasPassed)
        #expect(cancelled > 0 && cancelled < calls.count)

        try await downloader.shutdown()
        await origin.shutdown()
    }

    /// One task's share of the loads: each picks a URL, the async or the callback form, and in
    /// 30% of loads cancels after 0–5 ms.
    private static func work(_ count: Int, urls: [URL], manager: ImageManager, until deadline: StressDeadline) async -> [StressCall] {
        var calls: [StressCall] = []
        for _ in 0..<count where !deadline.hasPassed {
            let call = StressCall()
            calls.append(call)
            let url = urls.randomElement()!
            let cancels = Int.random(in: 0..<10) < 3
            let delay = Duration.microseconds(Int.random(in: 0...5_000))
            // A tenth ask for a thumbnail: a second cache key and a transform on the same bytes.
            let context = Int.random(in: 0..<10) == 0 ? WebImageContext(thumbnailPixelSize: PixelSize(width: 8, height: 8)) : WebImageContext()
            if Bool.random() {
                let operation = manager.loadImage(with: url, context: context) { call.answer($0) }
                if cancels {
                    try? await Task.sleep(for: delay)
                    call.markCancelled()
                    operation.cancel()
                }
            } else {
                let task = Task { () -> Result<ImageResult, WebImageError> in
                    do throws(WebImageError) {
                        return .success(try await manager.loadImage(with: url, context: context))
                    } catch {
                        return .failure(error)
                    }
                }
                if cancels {
                    try? await Task.sleep(for: delay)
                    call.markCancelled()
                    task.cancel()
                }
                call.answer(await task.value)
            }
            await call.firstAnswer()
        }
        return calls
    }
}

/// The run's time limit, counted from the first load a worker starts: under TSan, with the whole
/// suite busy on two cores, the workers once started only after a limit counted from the test's
/// start had passed, and the run made no load at all.
private final class StressDeadline: Sendable {
    private let limit: Duration
    private let end = Mutex<ContinuousClock.Instant?>(nil)

    init(_ limit: Duration) { self.limit = limit }

    var hasPassed: Bool {
        let now = ContinuousClock.now
        return end.withLock { end in
            if end == nil { end = now + limit }
            return now >= end!
        }
    }
}
