/// Decides each redirect a download would follow (Kingfisher's `ImageDownloadRedirectHandler`):
/// it sees the redirect's response and the request the downloader built for the next hop — the
/// next host's credentials and cookies, the headers filter and the request modifier already
/// applied — and returns that request, a changed one, or `nil` to follow no further. The
/// redirect's response is then the answer: a 3xx, which fails with
/// ``WebImageError/invalidDownloadStatusCode(_:)`` unless ``DownloaderConfig/acceptableStatusCodes``
/// holds it. A ``DownloadHopPolicy`` still decides the hop after it.
public protocol DownloadRedirectHandling: Sendable {
    func redirect(_ response: DownloadResponse, next request: DownloadRequest) -> DownloadRequest?
}

/// A redirect handler from a closure.
public struct RedirectHandler: DownloadRedirectHandling {
    private let body: @Sendable (DownloadResponse, DownloadRequest) -> DownloadRequest?

    public init(_ body: @escaping @Sendable (_ response: DownloadResponse, _ next: DownloadRequest) -> DownloadRequest?) {
        self.body = body
    }

    public func redirect(_ response: DownloadResponse, next request: DownloadRequest) -> DownloadRequest? {
        body(response, request)
    }
}
