import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// Turns what AsyncHTTPClient and NIO throw into ``WebImageError``, so callers switch on one
/// typed error and the blocklist can ask ``TransportError/isTransient``.
enum TransportErrorMapping {
    static func webImageError(for error: any Error, url: URL, redirectLimit: Int) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if let error = error as? HTTPClientError { return map(error, url: url, redirectLimit: redirectLimit) }
        let host = url.host ?? "?"
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .transport(.dnsLookupFailed(host: host))
            }
            let reason = error.connectionErrors.first.map { "\($0.error)" } ?? "no address to connect to"
            return .transport(.cannotConnect(host: host, reason: reason))
        }
        if let error = error as? SocketAddressError, case .unknown = error {
            return .transport(.dnsLookupFailed(host: host))
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return .transport(.timedOut(.connect))
            case .eof, .ioOnClosedChannel, .outputClosed, .inputClosed, .alreadyClosed:
                return .transport(.connectionLost(reason: "\(error)"))
            default: return .transport(.other("\(error)"))
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH:
                return .transport(.cannotConnect(host: host, reason: "\(error)"))
            case ECONNRESET, EPIPE, ECONNABORTED: return .transport(.connectionLost(reason: "\(error)"))
            case ETIMEDOUT: return .transport(.timedOut(.connect))
            default: return .transport(.other("\(error)"))
            }
        }
        if let error = error as? HTTP1ResponseParser.ParseError {
            return error == .truncated ? .transport(.connectionLost(reason: error.description))
                : .transport(.badServerResponse(reason: error.description))
        }
        if let error = error as? HTTPParserError {
            if case .invalidEOFState = error {
                return .transport(.connectionLost(reason: "the connection closed before the body was complete"))
            }
            return .transport(.badServerResponse(reason: "\(error)"))
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return .transport(.secureConnectionFailed(reason: "\(error)"))
        }
        return .transport(.other("\(error)"))
    }

    private static func map(_ error: HTTPClientError, url: URL, redirectLimit: Int) -> WebImageError {
        switch error {
        case .cancelled: .cancelled
        case .readTimeout: .transport(.timedOut(.read))
        case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout: .transport(.timedOut(.connect))
        case .deadlineExceeded: .transport(.timedOut(.resource))
        case .remoteConnectionClosed, .bodyLengthMismatch:
            .transport(.connectionLost(reason: "the server closed the connection before the response was complete"))
        case .redirectLimitReached: .transport(.tooManyRedirects(limit: redirectLimit))
        case .redirectCycleDetected: .transport(.redirectLoop)
        case .invalidURL, .emptyHost, .emptyScheme: .invalidURL(url.absoluteString)
        case .uncleanShutdown: .transport(.secureConnectionFailed(reason: "unclean TLS shutdown"))
        case .alreadyShutdown: .invalidDownloadOperation(reason: "the downloader has been shut down")
        default:
            if "\(error)".contains("unsupportedScheme") { .invalidURL(url.absoluteString) } else { .transport(.other("\(error)")) }
        }
    }
}
