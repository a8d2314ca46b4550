import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench download`: ImageDownloader alone over a list of URLs, for
/// `Tools/harness/compare-downloads`.
struct BenchDownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a list of image URLs with ImageDownloader; print one JSON line.",
        discussion: """
            Starts every URL in LIST (one a line) at once through one ImageDownloader limited to
            --concurrency downloads, writes each body to --out (like curl -o), and prints
              {"images":N,"failed":F,"bytes":B,"seconds":S,"cpu_seconds":C,"images_per_second":R}
            Without --decode the bytes are only checked to be an image (magic bytes), as the
            peers do not decode; with --decode every image is fully decoded, as an app's load is.
            """
    )

    @Argument(help: "A file with one URL a line.")
    var list: String

    @Option(help: "Downloads in flight.")
    var concurrency: Int = 16

    @Option(help: "Directory the bodies are written to (use tmpfs so the disk does not dominate).")
    var out: String

    @Flag(help: "Decode every image fully.")
    var decode = false

    @Option(help: "webimage: ImageDownloader on its lean HTTP/1.1 client; webimage-ahc: on AsyncHTTPClient; ahc: AsyncHTTPClient alone; nio: a bare SwiftNIO HTTP/1.1 client (no checks, no WebImage code); nio-store: the same, each body structure-checked and stored in a DiskCache at --out instead of written.")
    var client: Client = .webimage

    enum Client: String, ExpressibleByArgument {
        /// ImageDownloader on its lean HTTP/1.1 client (as `webimage prefetch` uses it); `webimage-ahc` on AsyncHTTPClient.
        case webimage, webimageAHC = "webimage-ahc", ahc, nio, nioStore = "nio-store"
    }

    func run() async throws {
        let text: String
        do { text = try String(contentsOfFile: list, encoding: .utf8) } catch {
            throw BenchError("cannot read \(list): \(error.localizedDescription)")
        }
        let urls = text.split(whereSeparator: \.isNewline).compactMap { URL(string: String($0)) }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        config.transport = client == .webimageAHC ? .asyncHTTPClient : .http1
        let downloader = ImageDownloader(config: config)
        let context = ImageLoaderContext(coder: decode ? nil : StructureCheckCoder())
        let cpuStart = Self.cpuSeconds()
        let clock = ContinuousClock()
        let start = clock.now
        let (failed, bytes) = switch client {
        case .ahc: await AHCFloorBench.run(urls, concurrency: concurrency, out: out)
        case .nio: await NIOFloorBench.run(urls, concurrency: concurrency, out: out)
        case .nioStore:
            await NIOFloorBench.run(urls, concurrency: concurrency, out: out, store: DiskCache(directory: URL(fileURLWithPath: out)))
        case .webimage, .webimageAHC: await Self.download(urls, with: downloader, context: context, out: out)
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let cpu = Self.cpuSeconds() - cpuStart
        try? await downloader.shutdown()
        let rate = Double(urls.count - failed) / seconds
        print("{\"images\":\(urls.count),\"failed\":\(failed),\"bytes\":\(bytes),\"seconds\":\(String(format: "%.3f", seconds)),"
            + "\"cpu_seconds\":\(String(format: "%.3f", cpu)),\"images_per_second\":\(String(format: "%.0f", rate))}")
    }

    /// Every URL through `downloader` at once (its queue keeps --concurrency running), each body
    /// written with a plain write, as curl -o does (FileManager.createFile writes a temp file and renames).
    private static func download(
        _ urls: [URL], with downloader: ImageDownloader, context: ImageLoaderContext, out: String
    ) async -> (failed: Int, bytes: Int) {
        await withTaskGroup(of: Int?.self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    guard let result = try? await downloader.loadImage(with: url, context: context) else { return nil }
                    let path = out + "/" + String(index) + "-" + url.lastPathComponent
                    try? result.data.write(to: URL(fileURLWithPath: path))
                    return result.data.count
                }
            }
            var failed = 0
            var bytes = 0
            for await size in group {
                if let size { bytes += size } else { failed += 1 }
            }
            return (failed, bytes)
        }
    }

    /// User + system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
