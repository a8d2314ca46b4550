import Foundation
@testable import WebImage

extension DownloaderConfig {
    /// The config the downloader specs start from: the library's default, or the transport
    /// `WEBIMAGE_TEST_TRANSPORT` names (`http1`), so `scripts/test` runs the downloader, fault-matrix
    /// and stress specs over both HTTP clients.
    static var forSpecs: DownloaderConfig {
        var config = DownloaderConfig()
        if ProcessInfo.processInfo.environment["WEBIMAGE_TEST_TRANSPORT"] == "http1" { config.transport = .http1 }
        return config
    }
}
