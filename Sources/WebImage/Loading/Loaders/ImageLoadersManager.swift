import Foundation
import Synchronization

/// Picks a loader per URL (SDWebImage's `SDImageLoadersManager`): the most recently added loader
/// that can request the URL wins, so an app can take over a scheme.
public final class ImageLoadersManager: ImageLoader {
    /// The built-in loaders for URLs from anywhere: `http(s)` and `data:`. Local files are opt-in
    /// (`shared.addLoader(FileLoader())`), so a URL from a stranger cannot read the machine's files.
    public static let shared = ImageLoadersManager()

    /// A loader with its bulk side, cast when added rather than on every load.
    private typealias Entry = (loader: any ImageLoader, bulk: (any BulkLoadExecuting)?)
    private let loaders: Mutex<[Entry]>

    /// A manager with the built-in loaders safe for any URL: ``ImageDownloader/shared`` for
    /// `http(s)` and ``DataURLLoader``. Add a ``FileLoader`` to read local files.
    public convenience init() {
        self.init(loaders: [ImageDownloader.shared, DataURLLoader()])
    }

    public init(loaders: [any ImageLoader]) {
        self.loaders = Mutex(loaders.map(Self.entry))
    }

    /// The loaders in priority order, lowest first.
    public var allLoaders: [any ImageLoader] { loaders.withLock { $0.map(\.loader) } }

    /// Adds `loader` with the highest priority.
    public func addLoader(_ loader: any ImageLoader) {
        let entry = Self.entry(loader)
        loaders.withLock { $0.append(entry) }
    }

    /// Removes every loader of `loader`'s type.
    public func removeLoader(_ loader: any ImageLoader) {
        let type = ObjectIdentifier(Swift.type(of: loader))
        loaders.withLock { $0.removeAll { ObjectIdentifier(Swift.type(of: $0.loader)) == type } }
    }

    private static func entry(_ loader: any ImageLoader) -> Entry {
        (loader, loader as? any BulkLoadExecuting)
    }

    /// The loader that takes `url`: the most recently added one that can.
    public func loader(for url: URL) -> (any ImageLoader)? {
        entry(for: url)?.loader
    }

    private func entry(for url: URL) -> Entry? {
        loaders.withLock { $0 }.reversed().first { $0.loader.canRequestImage(for: url) }
    }

    public func canRequestImage(for url: URL) -> Bool {
        loader(for: url) != nil
    }

    @discardableResult
    public func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        guard let loader = loader(for: url) else {
            return LoadCallbacks.failed(.invalidURL(DataURLLoader.abbreviated(url.absoluteString)), completion: completed)
        }
        return loader.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        loader(for: url)?.shouldBlockFailedURL(url, error: error) ?? error.shouldBlockFailedURL
    }
}

extension ImageLoadersManager: BulkLoadExecuting {
    /// Those of the first loader (from the highest priority) that has any.
    var bulkExecutors: [any TaskExecutor] {
        loaders.withLock { $0 }.reversed().lazy.compactMap { $0.bulk?.bulkExecutors }.first { !$0.isEmpty } ?? []
    }
}

extension ImageLoadersManager {
    /// The chosen loader's own async load, so a downloader behind the manager answers directly too.
    public func loadImageResult(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async -> Result<ImageLoaderResult, WebImageError> {
        guard let loader = loader(for: url) else {
            return .failure(.invalidURL(DataURLLoader.abbreviated(url.absoluteString)))
        }
        return await loader.loadImageResult(with: url, options: options, context: context, progress: progress)
    }
}
