import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// What SwiftNIO throws, which both carriers see, as ``TransportError``: each carrier's own
/// mapping handles its client's errors and hands the rest here.
enum NIOErrorMapping {
    /// `error` from a hop to `host`; `nil` when it is not one of NIO's.
    static func transportError(_ error: any Error, host: String) -> TransportError? {
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .dnsLookupFailed(host: host)
            }
            return .cannotConnect(host: host, reason: error.connectionErrors.first.map { "\($0.error)" } ?? "no address to connect to")
        }
        if let error = error as? SocketAddressError, case .unknown = error { return .dnsLookupFailed(host: host) }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return .timedOut(.connect)
            case .eof, .ioOnClosedChannel, .outputClosed, .inputClosed, .alreadyClosed: return .connectionLost(reason: "\(error)")
            default: return .other("\(error)")
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return .cannotConnect(host: host, reason: "\(error)")
            case ECONNRESET, EPIPE, ECONNABORTED: return .connectionLost(reason: "\(error)")
            case ETIMEDOUT: return .timedOut(.connect)
            default: return .other("\(error)")
            }
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return .secureConnectionFailed(reason: "\(error)")
        }
        return nil
    }
}
