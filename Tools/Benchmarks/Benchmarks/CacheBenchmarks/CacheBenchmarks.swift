import Benchmark
import Foundation
import Synchronization
import WebImage

// Issue "Caches": the memory cache against a bare Mutex-guarded dictionary (goal ≤ 3× its time per
// lookup), the disk cache against plain FileManager writes and reads of the same 30 KB bytes (goal
// ≥ 0.8× its throughput). (The sweep of 100,000 expired entries is `webimage-bench sweep`: its
// setup takes seconds per run, which this harness times badly.) Every benchmark does 1,000
// operations per iteration (scalingFactor .kilo), so the reported time per iteration in µs is the
// time per operation in ns.

private let keyCount = 1_000
private let keys = (0..<keyCount).map { "https://example.com/images/\($0).jpg" }
private let missKeys = (0..<keyCount).map { "https://example.com/missing/\($0).jpg" }
private let entryBytes = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

private func scratchDirectory(_ name: String) -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The baseline the memory cache is held to: a dictionary behind a lock, no limits, no LRU.
private final class BareMemoryCache: Sendable {
    let images = Mutex<[String: Image]>([:])
    func image(forKey key: String) -> Image? { images.withLock { $0[key] } }
    func setImage(_ image: Image, forKey key: String) { images.withLock { $0[key] = image } }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    let image = Image(bitmap: Bitmap(width: 64, height: 64, pixels: [UInt8](repeating: 128, count: 64 * 64 * 4)))
    let memory = MemoryCache(config: MemoryCacheConfig(costLimit: 1 << 30))
    let bare = BareMemoryCache()
    for key in keys {
        memory.setImage(image, forKey: key)
        bare.setImage(image, forKey: key)
    }

    Benchmark("memory hit: MemoryCache") { benchmark in
        for index in benchmark.scaledIterations { blackHole(memory.image(forKey: keys[index % keyCount])) }
    }
    Benchmark("memory hit: Mutex<[String: Image]>") { benchmark in
        for index in benchmark.scaledIterations { blackHole(bare.image(forKey: keys[index % keyCount])) }
    }
    Benchmark("memory miss: MemoryCache") { benchmark in
        for index in benchmark.scaledIterations { blackHole(memory.image(forKey: missKeys[index % keyCount])) }
    }
    Benchmark("memory miss: Mutex<[String: Image]>") { benchmark in
        for index in benchmark.scaledIterations { blackHole(bare.image(forKey: missKeys[index % keyCount])) }
    }
    Benchmark("memory store: MemoryCache") { benchmark in
        for index in benchmark.scaledIterations { memory.setImage(image, forKey: keys[index % keyCount]) }
    }
    Benchmark("memory store: Mutex<[String: Image]>") { benchmark in
        for index in benchmark.scaledIterations { bare.setImage(image, forKey: keys[index % keyCount]) }
    }

    // Disk: 1,000 distinct 30 KB entries written (replacing last iteration's) or read per iteration.
    let diskConfig = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput], timeUnits: .microseconds, warmupIterations: 1,
        scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 50)
    let disk = DiskCache(directory: scratchDirectory("disk"))
    let plainDirectory = scratchDirectory("plain").path
    let plainPaths = keys.map { plainDirectory + "/" + CacheKeys.diskFileName(forKey: $0) }

    Benchmark("disk store 30 KB: DiskCache", configuration: diskConfig) { benchmark in
        for index in benchmark.scaledIterations { try? disk.store(entryBytes, forKey: keys[index % keyCount]) }
    }
    Benchmark("disk store 30 KB: FileManager.createFile", configuration: diskConfig) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(FileManager.default.createFile(atPath: plainPaths[index % keyCount], contents: entryBytes))
        }
    }
    Benchmark("disk query 30 KB: DiskCache", configuration: diskConfig) { benchmark in
        for key in keys { try? disk.store(entryBytes, forKey: key) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { blackHole(disk.data(forKey: keys[index % keyCount])) }
    }
    Benchmark("disk query 30 KB: FileManager.contents", configuration: diskConfig) { benchmark in
        for path in plainPaths { FileManager.default.createFile(atPath: path, contents: entryBytes) }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations { blackHole(FileManager.default.contents(atPath: plainPaths[index % keyCount])) }
    }
}
