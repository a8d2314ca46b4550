import Foundation
import Testing
@testable import WebImage

@Suite("File and data: loaders")
struct LocalLoaderTests {
    private func fixtureURL(_ name: String) -> URL { Fixtures.directory.appendingPathComponent(name) }

    @Test("file: URLs and plain paths load and decode")
    func fileURL() async throws {
        let loader = FileLoader()
        let url = fixtureURL("jpeg-baseline.jpg")
        #expect(loader.canRequestImage(for: url))
        let plain = try #require(URL(string: url.path))
        #expect(plain.scheme == nil)
        #expect(loader.canRequestImage(for: plain))
        #expect(!loader.canRequestImage(for: URL(string: "http://example.com/a.jpg")!))
        let recorder = LoadRecorder()
        loader.requestImage(with: plain, options: [], context: .default, progress: recorder.progress, completed: recorder.completion)
        let result = try #require(await recorder.value())
        #expect(result.image.format == .jpeg)
        #expect(result.data == (try Fixtures.data("jpeg-baseline.jpg")))
        #expect(result.response == nil)
        #expect(recorder.progressValues.last?.receivedSize == Int64(result.data.count))
        #expect(await recorder.completionCount(after: .milliseconds(20)) == 1)
    }

    @Test("only regular files are read: a FIFO fails at once instead of blocking, a device instead of reading forever",
          .timeLimit(.minutes(1)))
    func regularFilesOnly() async throws {
        let fifo = TemporaryFolder.url("fifo.png")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        for url in [fifo, URL(fileURLWithPath: "/dev/zero")] {
            await #expect(throws: WebImageError.transport(.fileUnreadable(path: url.path, reason: "not a regular file (a FIFO, device or socket)"))) {
                try await FileLoader().loadImage(with: url)
            }
        }
    }

    @Test("a file over maximumFileSize fails with responseTooLarge; one at the limit loads")
    func sizeCap() async throws {
        let data = try Fixtures.data("png-rgb.png")
        let url = fixtureURL("png-rgb.png")
        await #expect(throws: WebImageError.transport(.responseTooLarge(limit: Int64(data.count - 1)))) {
            try await FileLoader(maximumFileSize: Int64(data.count - 1)).loadImage(with: url)
        }
        let exact = try await FileLoader(maximumFileSize: Int64(data.count)).loadImage(with: url)
        #expect(exact.data == data)
    }

    @Test("the shared default loaders refuse local files; a manager that opts in reads them")
    func localFilesAreOptIn() async throws {
        let file = fixtureURL("png-rgb.png")
        let plainPath = try #require(URL(string: file.path))
        for loaders in [ImageLoadersManager.shared, ImageLoadersManager()] {
            #expect(!loaders.canRequestImage(for: file))
            #expect(!loaders.canRequestImage(for: plainPath))
            #expect(loaders.canRequestImage(for: URL(string: "data:image/png;base64,AAAA")!))
            #expect(loaders.canRequestImage(for: URL(string: "https://example.com/a.png")!))
        }
        let directory = TemporaryFolder.url("optin")
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = ImageManager(cache: ImageCache(directory: directory), loader: ImageLoadersManager())
        await #expect(throws: WebImageError.invalidURL(file.absoluteString)) { try await manager.loadImage(with: file) }

        let optedIn = ImageLoadersManager()
        optedIn.addLoader(FileLoader())
        #expect(try await optedIn.loadImage(with: file).image.format == .png)
    }

    @Test("a missing file is a typed, blockable error")
    func missingFile() async throws {
        await #expect(throws: WebImageError.transport(.fileNotFound(path: "/nonexistent/x.png"))) {
            try await FileLoader().loadImage(with: URL(fileURLWithPath: "/nonexistent/x.png"))
        }
        #expect(WebImageError.transport(.fileNotFound(path: "/x")).shouldBlockFailedURL)
    }

    @Test("a file that is not an image gives 1001")
    func notAnImage() async throws {
        let path = TemporaryFolder.url("not-image.jpg")
        try Data("hello".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        do {
            _ = try await FileLoader().loadImage(with: path)
            Issue.record("text decoded as an image")
        } catch {
            #expect(error.code == 1001)
        }
    }

    @Test("the key's @2x gives the image scale")
    func scaleFromKey() async throws {
        let result = try await FileLoader().loadImage(
            with: fixtureURL("png-rgb.png"), context: ImageLoaderContext(cacheKey: "http://x/icon@2x.png"))
        #expect(result.image.scale == 2)
    }

    @Test("data: base64 and percent-encoded payloads")
    func dataURLs() async throws {
        let png = try Fixtures.data("png-rgba.png")
        let loader = DataURLLoader()
        let base64 = try #require(URL(string: "data:image/png;base64,\(png.base64EncodedString())"))
        #expect(loader.canRequestImage(for: base64))
        #expect(!FileLoader().canRequestImage(for: base64))
        let result = try await loader.loadImage(with: base64)
        #expect(result.image.format == .png)
        #expect(result.data == png)

        let escaped = png.map { String(format: "%%%02X", $0) }.joined()
        let percent = try #require(URL(string: "data:image/png,\(escaped)"))
        #expect(try await loader.loadImage(with: percent).data == png)
        #expect(DataURLLoader.payload(of: "data:,a%20b") == Data("a b".utf8))
        #expect(DataURLLoader.payload(of: "data:text/plain;charset=utf-8;base64,aGk=") == Data("hi".utf8))
    }

    @Test("malformed data: URLs are 1000, empty payloads 1001")
    func badDataURLs() async throws {
        let loader = DataURLLoader()
        await #expect(throws: WebImageError.invalidURL("data:image/png;base64")) {
            try await loader.loadImage(with: URL(string: "data:image/png;base64")!)
        }
        #expect(DataURLLoader.payload(of: "data:image/png,%G0") == nil)
        #expect(DataURLLoader.payload(of: "data:image/png,%4") == nil)
        do {
            _ = try await loader.loadImage(with: URL(string: "data:image/png;base64,")!)
            Issue.record("an empty payload decoded")
        } catch {
            #expect(error.code == 1001)
        }
    }

    @Test("cancel before the load finishes: one 2002, nothing else")
    func cancelLocal() async throws {
        // The decode is held until after the cancel, so the cancel always comes first (it once
        // came after a decode that finished before the next line ran, on a loaded machine).
        let decoding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let coder = HeldDecoder(entered: decoding, release: release)
        let recorder = LoadRecorder()
        let operation = FileLoader().requestImage(
            with: fixtureURL("jpeg-progressive.jpg"), options: [], context: ImageLoaderContext(coder: coder),
            progress: nil, completed: recorder.completion)
        try await onOwnThread { decoding.wait() }
        operation.cancel()
        operation.cancel()
        release.signal()
        #expect(operation.isCancelled)
        let result = try #require(await recorder.result())
        if case .failure(let error) = result { #expect(error == .cancelled) }
        #expect(await recorder.completionCount(after: .milliseconds(50)) == 1)
    }

    @Test("async loadImage: cancelling the task cancels the load")
    func taskCancellation() async throws {
        let task = Task {
            try await FileLoader().loadImage(with: fixtureURL("png-interlaced.png"))
        }
        task.cancel()
        switch await task.result {
        case .success: break  // the load may finish before the cancel lands
        case .failure(let error): #expect((error as? WebImageError) == .cancelled)
        }
    }
}

/// Decodes JPEG once the test lets it, saying when it started.
private struct HeldDecoder: ImageCoder {
    let entered: DispatchSemaphore
    let release: DispatchSemaphore
    func canDecode(_ data: Data) -> Bool { true }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image {
        entered.signal()
        release.wait()
        return try JPEGCoder().decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "decode only")
    }
}
