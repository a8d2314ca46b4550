import Foundation

/// Loads `file:` URLs and plain absolute paths (`/srv/img/a.jpg`), as SDWebImage loads
/// `file://` through `NSURLSession`.
public struct FileLoader: ImageLoader {
    public init() {}

    public func canRequestImage(for url: URL) -> Bool {
        url.isFileURL || (url.scheme == nil && url.path.hasPrefix("/"))
    }

    @discardableResult
    public func requestImage(
        with url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgressHandler?, completed: @escaping ImageLoaderCompletion
    ) -> any WebImageOperation {
        let path = url.path
        return LocalLoadOperation.load(url, options: options, context: context, progress: progress, completed: completed) {
            Self.read(path)
        }
    }

    static func read(_ path: String) -> Result<Data, WebImageError> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(.transport(.fileNotFound(path: path)))
        }
        if isDirectory.boolValue { return .failure(.transport(.fileUnreadable(path: path, reason: "it is a directory"))) }
        do {
            return .success(try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe))
        } catch {
            return .failure(.transport(.fileUnreadable(path: path, reason: error.localizedDescription)))
        }
    }
}
