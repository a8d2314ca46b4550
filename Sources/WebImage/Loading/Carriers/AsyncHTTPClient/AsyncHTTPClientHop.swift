import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Synchronization

/// One hop on AsyncHTTPClient: its delegate, which hands each head and body part to the
/// transfer, and the handle the transfer stops it through.
final class AsyncHTTPClientHop: HTTPClientResponseDelegate, CarriedHop {
    typealias Response = Void

    private struct State {
        var task: HTTPClient.Task<Void>?
        /// A stop that came before the task was known.
        var pendingStop: WebImageError?
        /// The transfer heard the hop's end (the client may report a failure twice).
        var ended = false
    }

    private let url: URL
    private let events: any HopEvents
    private let redirectLimit: Int
    private let state = Mutex(State())

    init(url: URL, events: any HopEvents, redirectLimit: Int) {
        self.url = url
        self.events = events
        self.redirectLimit = redirectLimit
    }

    /// The client took the hop as `task`: its end (or a failure no delegate call reports) ends
    /// the hop, and lets `lease` go.
    func started(_ task: HTTPClient.Task<Void>, lease: PinnedClients.Lease?) {
        let pending = state.withLock { state in
            state.task = task
            return state.pendingStop
        }
        task.futureResult.whenComplete { [self] result in
            lease?.release()
            if case .failure(let error) = result { failed(error) }
        }
        if let pending { task.fail(reason: pending) }
    }

    var eventLoop: any EventLoop { state.withLock { $0.task! }.eventLoop }

    func stop(_ error: WebImageError) {
        let task = state.withLock { state in
            if state.task == nil { state.pendingStop = state.pendingStop ?? error }
            return state.task
        }
        task?.fail(reason: error)
    }

    // MARK: HTTPClientResponseDelegate

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let goOn = events.headArrived(HopHead(url: url, status: Int(head.status.code), fields: HTTPFields(head.headers)), on: self)
        return goOn ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(WebImageError.cancelled)
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        events.bodyArrived(buffer, on: self) ? task.eventLoop.makeSucceededVoidFuture() : task.eventLoop.makeFailedFuture(WebImageError.cancelled)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        if endsNow() { events.hopEnded() }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        failed(error)
    }

    private func failed(_ error: any Error) {
        if endsNow() { events.hopFailed(mapped(error), unanswered: false) }
    }

    /// Whether this is the hop's first end.
    private func endsNow() -> Bool {
        state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
    }

    /// AsyncHTTPClient's and NIO's errors as ``WebImageError``.
    private func mapped(_ error: any Error) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .readTimeout: return .transport(.timedOut(.read))
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout: return .transport(.timedOut(.connect))
            case .deadlineExceeded: return .transport(.timedOut(.resource))
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return .transport(.connectionLost(reason: "the server closed the connection before the response was complete"))
            case .redirectLimitReached: return .transport(.tooManyRedirects(limit: redirectLimit))
            case .redirectCycleDetected: return .transport(.redirectLoop)
            case .invalidURL, .emptyHost, .emptyScheme: return .invalidURL(url.absoluteString)
            case .uncleanShutdown: return .transport(.secureConnectionFailed(reason: "unclean TLS shutdown"))
            case .alreadyShutdown: return ImageDownloader.shutDown
            default:
                return "\(error)".contains("unsupportedScheme") ? .invalidURL(url.absoluteString) : .transport(.other("\(error)"))
            }
        }
        if let error = error as? HTTPParserError {
            if case .invalidEOFState = error {
                return .transport(.connectionLost(reason: "the connection closed before the body was complete"))
            }
            return .transport(.badServerResponse(reason: "\(error)"))
        }
        return .transport(NIOErrorMapping.transportError(error, host: url.host ?? "?") ?? .other("\(error)"))
    }
}
