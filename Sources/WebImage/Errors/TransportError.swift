/// Why the bytes of a remote image never fully arrived: the network's side of a failure, as
/// opposed to what the server said (a status code) or what the bytes were (bad image data).
///
/// Each case knows whether trying again later can help (``isTransient``), which is what the
/// manager's failed-URL blocklist needs; ``urlErrorCode`` gives the `NSURLErrorDomain` code an
/// SDWebImage user would have seen for the same failure.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which clock ran out.
    public enum Timeout: String, Sendable, Hashable {
        /// Connecting to the host took too long.
        case connect
        /// No byte arrived for the idle timeout (``DownloaderConfig/downloadTimeout``).
        case read
        /// The whole download took longer than ``DownloaderConfig/resourceTimeout``.
        case resource
    }

    /// A clock ran out before the response was complete.
    case timedOut(Timeout)
    /// The host name did not resolve.
    case dnsLookupFailed(host: String)
    /// The host refused or did not answer the connection (nothing listening, unreachable).
    case cannotConnect(host: String, reason: String)
    /// The connection closed or was reset before the response was complete, including a body
    /// shorter than its `Content-Length`.
    case connectionLost(reason: String)
    /// TLS failed: handshake, certificate verification, unclean shutdown.
    case secureConnectionFailed(reason: String)
    /// The body is (or declares to be) larger than ``DownloaderConfig/maximumResponseSize``;
    /// the download stopped without buffering the rest.
    case responseTooLarge(limit: Int64)
    /// More redirects than ``DownloaderConfig/maximumRedirects``.
    case tooManyRedirects(limit: Int)
    /// The redirects lead back to a URL already visited.
    case redirectLoop
    /// The server sent something that is not valid HTTP.
    case badServerResponse(reason: String)
    /// A `file:` URL names no file (NSURLErrorFileDoesNotExist).
    case fileNotFound(path: String)
    /// A `file:` URL names something that cannot be read: a directory, no permission.
    case fileUnreadable(path: String, reason: String)
    /// Anything else the HTTP stack reported, in its own words.
    case other(String)

    /// Whether the same request may well succeed later (SDWebImage never blocks such URLs):
    /// timeouts, DNS and connect failures, and connections lost mid-way.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .dnsLookupFailed, .cannotConnect, .connectionLost: true
        case .secureConnectionFailed, .responseTooLarge, .tooManyRedirects, .redirectLoop,
             .badServerResponse, .fileNotFound, .fileUnreadable, .other: false
        }
    }

    /// The matching `NSURLErrorDomain` code (e.g. -1001 timed out), for logs and for code ported
    /// from SDWebImage that switches on it.
    public var urlErrorCode: Int {
        switch self {
        case .timedOut: -1001
        case .dnsLookupFailed: -1003
        case .cannotConnect: -1004
        case .connectionLost: -1005
        case .tooManyRedirects, .redirectLoop: -1007
        case .badServerResponse: -1011
        case .responseTooLarge: -1103
        case .secureConnectionFailed: -1200
        case .fileNotFound: -1100
        case .fileUnreadable: -1102
        case .other: -1
        }
    }

    public var description: String {
        switch self {
        case .timedOut(.connect): "timed out connecting to the host"
        case .timedOut(.read): "timed out waiting for data from the server (idle timeout)"
        case .timedOut(.resource): "the download took longer than the resource timeout"
        case .dnsLookupFailed(let host): "cannot resolve host \(host)"
        case .cannotConnect(let host, let reason): "cannot connect to \(host): \(reason)"
        case .connectionLost(let reason): "the connection was lost before the response was complete: \(reason)"
        case .secureConnectionFailed(let reason): "TLS failed: \(reason)"
        case .responseTooLarge(let limit): "the response is larger than the \(limit)-byte limit"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .redirectLoop: "the redirects form a loop"
        case .badServerResponse(let reason): "the server sent an invalid HTTP response: \(reason)"
        case .fileNotFound(let path): "no such file: \(path)"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .other(let message): message
        }
    }
}
