import Benchmark
import Foundation
import Synchronization
import WebImage

// Issue "ImageManager": a memory hit through ImageManager.loadImage — async and callback forms —
// against a bare Mutex-guarded dictionary lookup of the same key (goal ≤ 3×). 1,000 loads per
// iteration (scalingFactor .kilo): the time per iteration in µs is the time per load in ns.

private let keyCount = 1_000
private let urls = (0..<keyCount).map { URL(string: "https://example.com/images/\($0).jpg")! }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        // One throughput unit for every row (shown as K with scalingFactor .kilo): left automatic,
        // a fast row switched to whole millions (12 M/s cannot tell 80 ns from 86 ns).
        units: [.throughput: .count],
        warmupIterations: 3,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    let image = Image(bitmap: Bitmap(width: 64, height: 64, pixels: [UInt8](repeating: 128, count: 64 * 64 * 4)))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-manager-\(getpid())")
    let cache = ImageCache(directory: directory, config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 1 << 30)))
    let manager = ImageManager(cache: cache, loader: FileLoader())
    let bare = Mutex<[String: Image]>([:])
    for url in urls {
        cache.storeImageToMemory(image, forKey: url.absoluteString)
        bare.withLock { $0[url.absoluteString] = image }
    }

    Benchmark("memory hit: ImageManager.loadImage async") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try? await manager.loadImage(with: urls[index % keyCount]))
        }
    }
    Benchmark("memory hit: ImageManager.loadImage callback") { benchmark in
        for index in benchmark.scaledIterations {
            manager.loadImage(with: urls[index % keyCount]) { blackHole($0) }
        }
    }
    Benchmark("memory hit: Mutex<[String: Image]> (key from URL)") { benchmark in
        for index in benchmark.scaledIterations {
            let key = urls[index % keyCount].absoluteString
            blackHole(bare.withLock { $0[key] })
        }
    }
}
