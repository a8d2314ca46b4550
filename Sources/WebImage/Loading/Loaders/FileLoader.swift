import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loads `file:` URLs and plain absolute paths (`/srv/img/a.jpg`), as SDWebImage loads
/// `file://` through `NSURLSession`.
///
/// Not among the shared default loaders: a URL that came from elsewhere (a web page, a request to
/// a server) must not read the machine's files. Opt in where local files are wanted —
/// `ImageLoadersManager.shared.addLoader(FileLoader())`, or a manager of your own (the CLI does).
/// Only regular files are read (a FIFO would block and `/dev/zero` never ends), and at most
/// ``maximumFileSize`` bytes.
public struct FileLoader: AsyncImageLoader {
    /// The largest file read; a bigger one fails with ``TransportError/responseTooLarge(limit:)``.
    /// Default 50 MB, the downloader's ``DownloaderConfig/maximumResponseSize``.
    public var maximumFileSize: Int64

    public init(maximumFileSize: Int64 = DownloaderConfig.default.maximumResponseSize) {
        self.maximumFileSize = maximumFileSize
    }

    public func canRequestImage(for url: URL) -> Bool {
        url.hasScheme("file") || (!url.hasAnyScheme && url.path.hasPrefix("/"))
    }

    public func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult {
        let path = url.path
        let limit = maximumFileSize
        return try await LocalImageLoading.load(url, options: options, context: context, progress: progress) { Self.read(path, limit: limit) }
    }

    /// Reads a regular file of at most `limit` bytes. Opened without blocking and checked on the
    /// open descriptor, so a FIFO or device cannot hold the read, and a file swapped after a
    /// check cannot slip past it.
    static func read(_ path: String, limit: Int64) -> Result<Data, WebImageError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .failure(.transport(.fileNotFound(path: path))) }
            return .failure(.transport(.fileUnreadable(path: path, reason: String(cString: strerror(code)))))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return .failure(.transport(.fileUnreadable(path: path, reason: String(cString: strerror(errno)))))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return .failure(.transport(.fileUnreadable(path: path, reason: "it is a directory")))
        default: return .failure(.transport(.fileUnreadable(path: path, reason: "not a regular file (a FIFO, device or socket)")))
        }
        guard Int64(info.st_size) <= limit else { return .failure(.transport(.responseTooLarge(limit: limit))) }
        // Read to the end, not to st_size: the file may grow (the limit still holds) or shrink.
        var data = Data(count: Int(info.st_size))
        var total = 0
        while true {
            if total == data.count {
                guard Int64(total) < limit else {
                    // One byte past the limit tells a file that grew from one that is exactly at it.
                    var probe: UInt8 = 0
                    return Glibc.read(fd, &probe, 1) > 0 ? .failure(.transport(.responseTooLarge(limit: limit))) : .success(data)
                }
                data.count = Int(min(limit, Int64(max(total * 2, 64 * 1024))))
            }
            let count = data.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + total, buffer.count - total)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.transport(.fileUnreadable(path: path, reason: String(cString: strerror(errno)))))
            }
            if count == 0 { break }
            total += count
        }
        data.count = total
        return .success(data)
    }
}
