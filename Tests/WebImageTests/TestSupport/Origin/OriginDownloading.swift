import Foundation
import Testing
@testable import WebImage

/// Runs `body` with a fresh ``TestOrigin`` and an ``ImageDownloader`` configured for tests over
/// `carrier`, and shuts both down afterwards. The idle timeout is a generous 30 s: tests about timeouts set
/// their own, and the rest must not fail because the whole suite starved the test task of CPU
/// for a few seconds (gated routes wait for the test to open them).
func withOrigin(
    over carrier: DownloaderConfig.Transport,
    _ configure: (inout DownloaderConfig) -> Void = { _ in },
    _ body: (TestOrigin, ImageDownloader) async throws -> Void
) async throws {
    let origin = try await TestOrigin.start()
    var config = DownloaderConfig.forSpecs(carrier)
    config.downloadTimeout = 30
    config.cookieJar = CookieJar()
    configure(&config)
    let downloader = ImageDownloader(config: config)
    do {
        try await body(origin, downloader)
    } catch {
        try? await downloader.shutdown()
        await origin.shutdown()
        throw error
    }
    try await downloader.shutdown()
    await origin.shutdown()
}

extension ImageDownloader {
    /// Starts a download of `url` recorded by a fresh ``LoadRecorder``.
    @discardableResult
    func record(
        _ url: URL, options: DownloaderOptions = [], context: ImageLoaderContext = .default
    ) -> (recorder: LoadRecorder, operation: any WebImageOperation) {
        let recorder = LoadRecorder()
        let operation = requestImage(
            with: url, options: options, context: context, progress: recorder.progress, completed: recorder.completion)
        return (recorder, operation)
    }
}

extension Fixtures {
    /// A progressive JPEG of the test card, large enough (~40 KB at 320×240) to arrive in
    /// many chunks.
    static let largeProgressiveJPEG: Data = {
        let image = Image(bitmap: testCard(width: 320, height: 240))
        return try! ImageCodersManager.shared.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.95, progressive: true))
    }()
}
