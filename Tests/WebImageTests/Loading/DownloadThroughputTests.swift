import Foundation
import Testing
@testable import WebImage

/// An opt-in measurement, not a spec: 2,000 different URLs of one ~54 KB JPEG from the in-process origin
/// at concurrency 8 and 16, downloaded and decoded. Run with
/// `WEBIMAGE_LOADING_BENCH=1 swift test --skip-build --filter DownloadThroughputTests`.
@Suite("Download throughput (opt-in)", .serialized, .enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_LOADING_BENCH"] != nil))
struct DownloadThroughputTests {
    @Test("2,000 x ~54 KB over loopback", arguments: DownloaderConfig.Transport.carriers, [8, 16])
    func throughput(_ carrier: DownloaderConfig.Transport, concurrency: Int) async throws {
        let image = Image(bitmap: Fixtures.testCard(width: 320, height: 320))
        let jpeg = try ImageCodersManager.shared.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 1.0))
        try await withOrigin(over: carrier, { $0.maxConcurrentDownloads = concurrency }) { origin, downloader in
            origin.route("/img.jpg", .body(.bytes(jpeg), contentType: "image/jpeg"))
            let count = 2_000
            let clock = ContinuousClock.now
            let usageBefore = cpuSeconds()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask { _ = try await downloader.loadImage(with: origin.url("/img.jpg?\(index)")) }
                }
                try await group.waitForAll()
            }
            let elapsed = clock.duration(to: .now).seconds
            let cpu = cpuSeconds() - usageBefore
            print("loopback: \(count) x \(jpeg.count) B at concurrency \(concurrency): "
                + String(format: "%.0f images/s, %.2f s wall, %.2f CPU s (origin and client in one process)",
                         Double(count) / elapsed, elapsed, cpu))
            #expect(origin.requestCount("/img.jpg") == count)
        }
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
