import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench sweep`: times ``DiskCache/removeExpiredData()`` over a directory of expired
/// entries (the cache issue's cleanup number).
struct BenchSweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Time a disk-cache sweep of N expired entries; print one JSON line.",
        discussion: """
            Stores --count entries of --size bytes in a fresh directory under $TMPDIR (untimed),
            makes them all expired, then times one removeExpiredData() — the directory scan and
            every removal — and prints
              {"count":N,"removed":N,"size":B,"seconds":S,"store_seconds":S}
            """
    )

    @Option(help: "Entries to create.")
    var count: Int = 100_000

    @Option(help: "Bytes per entry.")
    var size: Int = 512

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-sweep-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = DiskCache(directory: directory, config: DiskCacheConfig(maxDiskAge: 3600))
        let bytes = Data(count: size)
        let clock = ContinuousClock()
        let storeStart = clock.now
        for index in 0..<count { try cache.store(bytes, forKey: "https://example.com/sweep/\(index).jpg") }
        let storeTime = clock.now - storeStart
        cache.config.maxDiskAge = 0  // everything stored so far is now expired
        let start = clock.now
        let removed = cache.removeExpiredData()
        let elapsed = clock.now - start
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        print("{\"count\":\(count),\"removed\":\(removed.removedCount),\"size\":\(size),"
            + "\"seconds\":\(String(format: "%.3f", seconds(elapsed))),\"store_seconds\":\(String(format: "%.3f", seconds(storeTime)))}")
        if removed.removedCount != count { throw BenchError("the sweep removed \(removed.removedCount) of \(count) entries") }
    }
}
