import Foundation
import Synchronization
@testable import WebImage

/// A real loader (``FileLoader`` unless told otherwise) that counts the loads it starts, for tests
/// that must prove a result came from the cache, not from a second load, or that every caller has
/// reached the loader.
struct CountingLoader: ImageLoader {
    let counter = Counter()
    private let inner: any ImageLoader

    init(_ inner: any ImageLoader = FileLoader()) { self.inner = inner }

    func canRequestImage(for url: URL) -> Bool { inner.canRequestImage(for: url) }

    func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        counter.increment()
        return inner.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A manager over a fresh ``ImageCache`` in a temporary directory (removed on deinit).
final class ManagerFixture: Sendable {
    let directory: URL
    let cache: ImageCache
    let manager: ImageManager

    init(loader: any ImageLoader) throws {
        directory = try TemporaryFolder.make("manager")
        cache = ImageCache(directory: directory.appendingPathComponent("cache"),
                           config: ImageCacheConfig(memory: MemoryCacheConfig(costLimit: 256 << 20)))
        manager = ImageManager(cache: cache, loader: loader)
    }

    /// Copies fixture `name` into the temporary directory as `as` and returns its file URL.
    func file(_ name: String, as target: String? = nil) throws -> URL {
        let url = directory.appendingPathComponent(target ?? name)
        try Fixtures.data(name).write(to: url)
        return url
    }

    deinit { TemporaryFolder.remove(directory) }
}

/// Records a callback-form load's answers.
final class ManagerAnswers: Sendable {
    private let results = Mutex<[Result<ImageResult, WebImageError>]>([])
    func record(_ result: Result<ImageResult, WebImageError>) { results.withLock { $0.append(result) } }
    var count: Int { results.withLock { $0.count } }
    var all: [Result<ImageResult, WebImageError>] { results.withLock { $0 } }
    var last: Result<ImageResult, WebImageError>? { results.withLock { $0.last } }
}
