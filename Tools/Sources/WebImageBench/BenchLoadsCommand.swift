import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench loads`: many `ImageManager.loadImage` calls at once, each caller dropping its
/// image as it arrives, the memory cache off — the memory benchmark of `Tools/harness/bench-memory`.
struct BenchLoadsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loads",
        abstract: "Start a list of image loads at once through ImageManager; print one JSON line.",
        discussion: """
            Calls loadImage for every URL in LIST (one a line) at once, memory cache off and
            nothing stored, each caller dropping the image it gets, and prints
              {"loads":N,"failed":F,"seconds":S,"peak_rss_mb":M}
            where peak_rss_mb is the process's high-water mark (VmHWM).
            """
    )

    @Argument(help: "A file with one URL a line.")
    var list: String

    @Option(help: "Downloads in flight (the downloader's limit).")
    var concurrency: Int = 16

    func run() async throws {
        let text: String
        do { text = try String(contentsOfFile: list, encoding: .utf8) } catch {
            throw BenchError("cannot read \(list): \(error.localizedDescription)")
        }
        let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-loads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var cacheConfig = ImageCacheConfig()
        cacheConfig.shouldCacheImagesInMemory = false
        let manager = ImageManager(
            cache: ImageCache(directory: directory, config: cacheConfig),
            loader: ImageLoadersManager(loaders: [ImageDownloader(config: config)]))
        let context = WebImageContext(storeCacheType: .none)
        let start = ContinuousClock.now
        let failed = await withTaskGroup(of: Bool.self) { group in
            for url in urls {
                group.addTask { (try? await manager.loadImage(with: url, context: context)) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let seconds = (ContinuousClock.now - start).seconds
        print(#"{"loads":\#(urls.count),"failed":\#(failed),"seconds":\#(String(format: "%.2f", seconds)),"peak_rss_mb":\#(Self.peakRSSMegabytes())}"#)
    }

    /// VmHWM from /proc/self/status, in MB.
    static func peakRSSMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return -1 }
        return kilobytes / 1024
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
