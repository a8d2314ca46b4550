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
        let operation = LocalLoadOperation(progress: progress, completion: completed)
        let path = url.path
        operation.start(url: url, options: options, context: context) {
            Self.read(path)
        }
        return operation
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
