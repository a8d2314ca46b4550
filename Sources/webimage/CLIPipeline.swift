import Foundation
import WebImage

/// The library pipeline the commands share: an ``ImageCache`` in the chosen directory, an
/// ``ImageDownloader`` of their own (shut down cleanly on exit), and an ``ImageManager`` over both.
struct CLIPipeline {
    let cache: ImageCache
    let downloader: ImageDownloader
    let manager: ImageManager

    /// The cache in `options`' directory with its size limit; `transport` carries the downloads
    /// (`prefetch`, the bulk command, asks for the lean ``DownloaderConfig/Transport/http1``);
    /// `trust` lists CA files trusted for https besides the system's (`--cacert`).
    init(
        cache options: CacheDirectoryOption, concurrency: Int = DownloaderConfig().maxConcurrentDownloads,
        transport: DownloaderConfig.Transport = .asyncHTTPClient, trust: [String] = [], timeout: Double? = nil
    ) {
        var cacheConfig = ImageCacheConfig()
        cacheConfig.disk = options.diskConfig
        cache = ImageCache(directory: options.directory, config: cacheConfig)
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = concurrency
        config.transport = transport
        config.additionalTrustedCertificateFiles = trust
        if let timeout { config.downloadTimeout = timeout }
        // Every load here is bound for the disk cache: large bodies wait for their decode beside it, not in memory.
        config.bodySpill = BodySpill(directory: options.directory.appendingPathComponent(".incoming", isDirectory: true))
        downloader = ImageDownloader(config: config)
        manager = ImageManager(
            cache: cache, loader: ImageLoadersManager(loaders: [downloader, FileLoader(), DataURLLoader()]))
    }

    static func directory(_ option: String?) -> URL {
        option.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultDirectory(namespace: "default")
    }

    /// A URL from what a person typed: an absolute URL as it is, anything else a file path.
    static func url(from argument: String) -> URL {
        if let url = URL(string: argument), let scheme = url.scheme, ["http", "https", "file", "data"].contains(scheme.lowercased()) {
            return url
        }
        return URL(fileURLWithPath: argument)
    }

    /// Ends the HTTP client and lets the disk cache finish what it owes (writes, the size trim of
    /// a first store into an existing directory) before the process exits.
    func shutdown() async {
        try? await downloader.shutdown()
        await cache.waitForPendingDiskWork()
    }
}
