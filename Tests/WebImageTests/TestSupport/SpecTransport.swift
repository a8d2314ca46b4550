import Foundation
import Testing
@testable import WebImage

extension DownloaderConfig.Transport {
    /// Every client a download spec runs over, as its test argument.
    static let carriers: [DownloaderConfig.Transport] = [.asyncHTTPClient, .http1]
}

extension DownloaderConfig.Transport: CustomTestStringConvertible {
    public var testDescription: String { self == .http1 ? "lean HTTP/1.1" : "AsyncHTTPClient" }
}

extension DownloaderConfig {
    /// The config download specs start from: the library's default over `carrier`.
    static func forSpecs(_ carrier: Transport) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.transport = carrier
        return config
    }
}
