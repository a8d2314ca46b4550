import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A loader that answers every URL of one scheme with a fixed error, to see which loader ran.
private struct MarkerLoader: ImageLoader {
    let scheme: String
    let marker: String

    func canRequestImage(for url: URL) -> Bool { url.scheme == scheme }

    func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        LoadCallbacks.failed(.invalidDownloadOperation(reason: marker), completion: completed)
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool { marker == "blocks" }
}

@Suite("ImageLoadersManager")
struct ImageLoadersManagerTests {
    @Test("routes by scheme; the last added loader that accepts the URL wins")
    func lastAddedWins() async throws {
        let manager = ImageLoadersManager(loaders: [FileLoader(), DataURLLoader()])
        let file = Fixtures.directory.appendingPathComponent("png-rgb.png")
        #expect(manager.canRequestImage(for: file))
        #expect(!manager.canRequestImage(for: URL(string: "gopher://x/a.png")!))
        #expect(try await manager.loadImage(with: file).image.format == .png)

        manager.addLoader(MarkerLoader(scheme: "file", marker: "override"))
        await #expect(throws: WebImageError.invalidDownloadOperation(reason: "override")) {
            try await manager.loadImage(with: file)
        }
        manager.removeLoader(MarkerLoader(scheme: "file", marker: "override"))
        #expect(try await manager.loadImage(with: file).image.format == .png)
    }

    @Test("loader(for:) names the loader that would take a URL: the manager's pick among its loaders, a plain loader itself or nobody")
    func loaderForURL() throws {
        let manager = ImageLoadersManager(loaders: [MarkerLoader(scheme: "x", marker: "first")])
        manager.addLoader(MarkerLoader(scheme: "x", marker: "last"))
        let url = try #require(URL(string: "x://a/b.png"))
        #expect((manager.loader(for: url) as? MarkerLoader)?.marker == "last")
        #expect(manager.loader(for: try #require(URL(string: "y://a/b.png"))) == nil)
        let plain = MarkerLoader(scheme: "x", marker: "plain")
        #expect((plain.loader(for: url) as? MarkerLoader)?.marker == "plain")
        #expect(plain.loader(for: try #require(URL(string: "y://a/b.png"))) == nil)
    }

    @Test("no loader for the URL: 1000, delivered once and asynchronously")
    func unsupportedScheme() async throws {
        let manager = ImageLoadersManager(loaders: [])
        let recorder = LoadRecorder()
        manager.requestImage(with: URL(string: "gopher://x/a.png")!, options: [], context: .default,
                             progress: nil, completed: recorder.completion)
        let error = try #require(await recorder.error())
        #expect(error.code == 1000)
        #expect(await recorder.completionCount(after: .milliseconds(20)) == 1)
    }

    @Test("shouldBlockFailedURL asks the loader that owns the URL")
    func blockRuleDelegated() {
        let manager = ImageLoadersManager(loaders: [MarkerLoader(scheme: "x", marker: "blocks"), MarkerLoader(scheme: "y", marker: "no")])
        #expect(manager.shouldBlockFailedURL(URL(string: "x://a")!, error: .cancelled))
        #expect(!manager.shouldBlockFailedURL(URL(string: "y://a")!, error: .badImageData(reason: "x")))
        #expect(manager.shouldBlockFailedURL(URL(string: "z://a")!, error: .badImageData(reason: "x")))
    }
}
