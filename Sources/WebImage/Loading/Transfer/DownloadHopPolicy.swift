import Foundation

/// One hop of a download as a ``DownloadHopPolicy`` allowed it.
public struct DownloadHop: Sendable, Hashable {
    /// The URL to request (a policy may respell it, e.g. with its host normalized).
    public var url: URL
    /// The address to connect to instead of resolving the URL's host (TLS still checks the host's
    /// name); `nil` = resolve as usual. Connections are pooled per host *and* address.
    public var address: String?

    public init(url: URL, address: String? = nil) {
        self.url = url
        self.address = address
    }
}

/// Decides every hop of a download before it goes out — the first request and each redirect the
/// downloader's `RedirectChain` would follow (``DownloaderConfig/hopPolicy``). WebImageServer's
/// SSRF check is one: it resolves the host, checks every address and pins the connection to it.
public protocol DownloadHopPolicy: Sendable {
    /// The hop to make for `url`, or the error the download fails with.
    func allow(next url: URL) async throws(WebImageError) -> DownloadHop
}
