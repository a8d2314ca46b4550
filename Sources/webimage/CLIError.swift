import ArgumentParser
import Foundation
import WebImage

/// A failure the user can act on: printed as one `error:` line on stderr, exit status 1 (or
/// `status`).
struct CLIError: Error {
    let message: String
    var status: Int32 = 1
    init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }

    /// `--offline` and the image is not in the cache.
    static let notCachedStatus: Int32 = 3

    static func exit(with message: String, status: Int32 = 1) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Foundation.exit(status)
    }
}

/// `--offline`, for the commands that read one image.
struct OfflineOption: ParsableArguments {
    @Flag(help: "Read the cache only: never a request; an image not cached is an error (exit status 3).")
    var offline = false

    /// `options` with the cache-only rule when offline.
    func applied(to options: WebImageOptions) -> WebImageOptions {
        offline ? options.union(.fromCacheOnly) : options
    }

    /// The error line for a load that failed offline, or nil.
    func message(for error: WebImageError, source: String) -> String? {
        guard offline, error == .notInCache else { return nil }
        return "\(source) is not in the cache (--offline makes no request; fetch it once online, or add it to a collection)"
    }
}
