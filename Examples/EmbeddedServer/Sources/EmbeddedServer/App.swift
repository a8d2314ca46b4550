import Foundation
import Hummingbird
import WebImage
import WebImageServer

/// An application with routes of its own that also serves thumbor URLs: `GET /hello` is the
/// app's, every other GET is the image server's (`/unsafe/300x200/HOST/PATH`).
///
/// The sources come through the app's own loader — WebImage's downloader, trusting the app's own
/// origin (`ORIGIN_HOST`) — and variants go to the app's own result cache.
@main
struct App {
    static func main() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = environment["PORT"].flatMap(Int.init) ?? 8090
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-server-\(getpid())")

        var configuration = ImageServerConfiguration()
        configuration.allowUnsafe = true
        configuration.cacheDirectory = cacheDirectory
        configuration = try configuration.validated()

        // The app's loader: it fetches only from the app's own origin, so it needs no address policy.
        let origin = environment["ORIGIN_HOST"] ?? "127.0.0.1"
        let loader = OwnOriginLoader(host: origin, downloader: ImageDownloader())
        let results = MemoryResultCache()
        let images = ImageServer(configuration: configuration, resultCache: results, loader: loader)

        let router = Router()
        router.get("/hello") { _, _ in "hello from the app; \(results.count) variants cached\n" }
        images.addRoutes(to: router)

        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                print("embedded server on http://127.0.0.1:\(channel.localAddress?.port ?? port)")
            })
        try await app.runService()
        await images.shutdown()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }
}

/// WebImage's downloader for one host only: every other source is refused.
struct OwnOriginLoader: AsyncImageLoader {
    let host: String
    let downloader: ImageDownloader

    /// Every http URL is this loader's to answer: one on another host is refused (403), not unknown (400).
    func canRequestImage(for url: URL) -> Bool {
        url.scheme == "http"
    }

    func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult {
        guard url.host == host else { throw .refusedByHopPolicy(reason: "only \(host) is a source here") }
        return try await downloader.loadImage(with: url, options: options, context: context, progress: progress)
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool { false }
}
