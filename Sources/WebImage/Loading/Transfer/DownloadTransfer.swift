import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Synchronization

/// Runs one download for a `DownloadOperation`, hop by hop: asks the hop policy before each
/// request, sends it on a carrier (AsyncHTTPClient, or ``HTTP1Transport``; either calls back on an
/// event loop, one hop each), follows redirects by ``RedirectChain``, checks the final head as soon as
/// it arrives (response modifier, status, content type, declared size), counts bytes against the
/// size limit while they stream, reports progress, feeds progressive decoding, and hands the bytes
/// over at the end. Nothing here decodes a full image or calls user code other than the response
/// modifier and the hop policy.
final class DownloadTransfer: HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        /// The hop's body (a redirect's is counted, not kept).
        var body: ResponseBody
        var received: Int64 = 0
        var expected: Int64 = -1
        var response: DownloadResponse?
        var visitedURL: URL?
        var heads = 0
        /// The hop in flight: its request and the carrier's task (nil while the policy decides).
        var request: DownloadRequest
        var task: (any TransferTask)?
        var redirects: RedirectChain
        /// Where the response in flight redirects, and its status: its body is not ours.
        var redirect: (target: URL, status: UInt)?
        var responseAt: ContinuousClock.Instant?
        var lastReportedFraction = -1.0
        /// When the last head or body part arrived (or the transfer started): the idle timer's mark.
        var lastActivity = NIODeadline.now()
        var idleCheck: NIOScheduledCallback?
        /// The reason we stopped the transfer ourselves; wins over what the client reports.
        var failure: WebImageError?
        var isEnded = false
    }

    private let operation: DownloadOperation
    private let config: DownloaderConfig
    private let startedAt: ContinuousClock.Instant
    private let startDate = Date()
    private let queueDuration: Duration
    private let deadline: NIODeadline?
    private let state: Mutex<State>
    private let progressive = Mutex<ProgressiveDecoding?>(nil)

    init(operation: DownloadOperation, startedAt: ContinuousClock.Instant, queueDuration: Duration, deadline: NIODeadline?) {
        self.operation = operation
        self.config = operation.environment.config
        self.startedAt = startedAt
        self.queueDuration = queueDuration
        self.deadline = deadline
        let request = operation.request
        state = Mutex(State(
            body: Self.emptyBody(for: operation), request: request,
            redirects: RedirectChain(from: request.url, limit: operation.environment.config.maximumRedirects)))
    }

    /// A hop's empty body: spilled past the config's threshold, unless progressive decoding reads it as it grows.
    private static func emptyBody(for operation: DownloadOperation) -> ResponseBody {
        let config = operation.environment.config
        return ResponseBody(
            limit: config.maximumResponseSize,
            spill: operation.options.contains(.progressiveLoad) ? nil : config.bodySpill)
    }

    // MARK: Hops

    /// Sends the first hop.
    func start() {
        send(state.withLock { $0.request })
    }

    /// Stops the download: the hop in flight is cancelled, or — between hops — the transfer ends.
    func cancel() {
        let task = state.withLock { state in
            state.failure = state.failure ?? .cancelled
            return state.task
        }
        if let task { task.cancel() } else { end(.failure(.cancelled)) }
    }

    /// Asks the hop policy (when there is one) about `request`, then carries it.
    private func send(_ request: DownloadRequest) {
        guard let policy = config.hopPolicy else { return carry(request, address: nil) }
        Task {
            do throws(WebImageError) {
                let hop = try await policy.allow(next: request.url)
                var request = request
                request.url = hop.url
                carry(request, address: hop.address)
            } catch {
                end(.failure(error))
            }
        }
    }

    private func carry(_ request: DownloadRequest, address: String?) {
        let proceed = state.withLock { state in
            state.request = request
            state.redirect = nil
            return !state.isEnded && state.failure == nil
        }
        guard proceed else { return end(.failure(state.withLock { $0.failure } ?? .cancelled)) }
        switch operation.carry(request, address: address, transfer: self, deadline: deadline) {
        case .failure(let error): end(.failure(error))
        case .success(let task):
            let (first, ended) = state.withLock { state in
                defer { if !state.isEnded { state.task = task } }
                return (state.heads == 0 && state.idleCheck == nil, state.isEnded || state.failure != nil)
            }
            if ended { return task.cancel() }
            if first { startIdleTimer(task) }
        }
    }

    /// The hop's response redirects: the next hop, or the error that ends the chain.
    private func follow(_ target: URL, status: UInt) {
        let next = state.withLock { state in
            state.task = nil
            state.body = Self.emptyBody(for: operation)  // the redirect's was only counted
            return state.redirects.follow(state.request, to: target, status: status)
        }
        switch next {
        case .failure(let error): end(.failure(mapped(error)))
        case .success(let request): send(request)
        }
    }

    func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        visited(request.url, setCookies: head.headers["set-cookie"])
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        headArrived(status: Int(head.status.code), fields: HTTPFields(head.headers), task: task)
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        bodyArrived(buffer, task: task)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finished()
    }

    /// Ends the transfer with whatever fails `task`, even without a delegate call.
    func watchFailures(_ task: HTTPClient.Task<Void>) {
        task.futureResult.whenFailure { [self] error in end(.failure(mapped(error))) }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        failed(error)
    }

    // MARK: From any client

    /// A response head with `setCookies` (its `Set-Cookie` values) arrived for `url` (each hop of
    /// a redirect chain, the last one included).
    func visited(_ url: URL, setCookies: @autoclosure () -> [String]) {
        state.withLock { state in
            state.heads += 1
            state.visitedURL = url
            state.lastActivity = .now()
        }
        if operation.options.contains(.handleCookies) {
            config.cookieJar.store(setCookieHeaders: setCookies(), from: url)
        }
    }

    /// A hop's head (`status` and `fields`): a redirect to follow, or the answer; a failed future stops the request.
    func headArrived(status: Int, fields: HTTPFields, task: any TransferTask) -> EventLoopFuture<Void> {
        let (url, redirect) = state.withLock { state in
            let url = state.visitedURL ?? state.request.url
            state.redirect = state.redirects.target(status: status, location: fields[.location], from: state.request.url)
                .map { ($0, UInt(status)) }
            return (url, state.redirect)
        }
        if redirect != nil { return task.eventLoop.makeSucceededVoidFuture() }
        let verdict = ResponseAcceptance.verdict(
            status: status, fields: fields, url: url, config: config,
            modifier: operation.context.responseModifier ?? config.responseModifier)
        let response: DownloadResponse
        switch verdict {
        case .accepted(let accepted): response = accepted
        case .refused(let error, let refused):
            guard let refused else { return fail(task, error) }
            response = refused
        }
        let expected = response.expectedContentLength
        state.withLock { state in
            state.response = response
            state.expected = expected
            state.responseAt = .now
            state.lastActivity = .now()
        }
        operation.transferReceived(response)
        if case .refused(let error, _) = verdict { return fail(task, error) }
        // Only an accepted body gets room up front, and never more than the limit: a 304 (no
        // body, whatever its Content-Length says) once reserved 2^45 bytes and trapped.
        if expected > 0, response.statusCode != 304 {
            state.withLock { $0.body.reserve(expected) }
        }
        operation.deliverProgress(ImageLoaderProgress(receivedSize: 0, expectedSize: expected, url: operation.url))
        if operation.options.contains(.progressiveLoad) { startProgressiveDecoding() }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func bodyArrived(_ buffer: ByteBuffer, task: any TransferTask) -> EventLoopFuture<Void> {
        let (received, expected, report, tooLarge) = state.withLock { state -> (Int64, Int64, Bool, Bool) in
            state.lastActivity = .now()
            // A redirect's body is read (the connection stays reusable) but not kept, and has the same limit.
            if state.redirect != nil { return (0, 0, false, !state.body.discard(buffer)) }
            state.received += Int64(buffer.readableBytes)
            guard state.body.append(buffer) else { return (state.received, state.expected, false, true) }
            return (state.received, state.expected, shouldReport(&state), false)
        }
        if tooLarge { return fail(task, .transport(.responseTooLarge(limit: config.maximumResponseSize))) }
        if report {
            operation.deliverProgress(ImageLoaderProgress(receivedSize: received, expectedSize: expected, url: operation.url))
        }
        progressive.withLock { $0 }?.bytesArrived()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// SD's `minimumProgressInterval`: report when the fraction moved by at least the interval,
    /// always when the size is unknown, and always the last chunk.
    private func shouldReport(_ state: inout State) -> Bool {
        guard state.expected > 0 else { return true }
        let fraction = Double(state.received) / Double(state.expected)
        guard config.minimumProgressInterval > 0, state.received < state.expected,
              fraction - state.lastReportedFraction < config.minimumProgressInterval
        else {
            state.lastReportedFraction = fraction
            return true
        }
        return false
    }

    func finished() {
        let (response, redirect) = state.withLock { ($0.response, $0.redirect) }
        if let redirect { return follow(redirect.target, status: redirect.status) }
        guard let response else {
            return end(.failure(.transport(.badServerResponse(reason: "no response head"))))
        }
        end(.success(TransferOutput(data: state.withLock { $0.body.data() }, response: response)))
    }

    func failed(_ error: any Error) {
        end(.failure(mapped(error)))
    }

    /// Starts the request's idle timer on `task`'s event loop (the first hop's).
    private func startIdleTimer(_ task: any TransferTask) {
        let timeout = operation.request.timeout
        if let delay = TimeAmount.limit(seconds: timeout) { scheduleIdleCheck(task, in: delay) }
    }

    /// The request's own idle timeout (``DownloadRequest/timeout``, which a request modifier may
    /// change), kept here because the client's read timeout is one value for every request:
    /// nothing arriving for that long — connecting, waiting for the head, between body parts —
    /// fails the transfer with a read timeout.
    private func scheduleIdleCheck(_ task: any TransferTask, in delay: TimeAmount) {
        // A scheduled callback, not `scheduleTask`: no promise and future per transfer (a bulk
        // prefetch arms and cancels one per image). It fails only on a loop that is shutting down,
        // which fails the transfer's connection too.
        guard let check = try? task.eventLoop.scheduleCallback(in: delay, handler: IdleCheck(transfer: self, task: task)) else { return }
        let ended = state.withLock { state in
            if !state.isEnded { state.idleCheck = check }
            return state.isEnded
        }
        if ended { check.cancel() }
    }

    /// The idle timer fired: fails the transfer if nothing arrived for the whole timeout, or checks again when it could have.
    private func idleCheckFired(_ task: any TransferTask) {
        guard let timeout = TimeAmount.limit(seconds: operation.request.timeout) else { return }
        let idle = state.withLock { $0.isEnded ? nil : NIODeadline.now() - $0.lastActivity }
        guard let idle else { return }
        if idle >= timeout {
            // The hop in flight, which may be a later one than the timer's; between hops, the transfer itself.
            guard let current = state.withLock({ $0.task }) else { return end(.failure(.transport(.timedOut(.read)))) }
            _ = fail(current, .transport(.timedOut(.read)))
        } else {
            scheduleIdleCheck(task, in: timeout - idle)
        }
    }

    private struct IdleCheck: NIOScheduledCallbackHandler {
        let transfer: DownloadTransfer
        let task: any TransferTask

        func handleScheduledCallback(eventLoop: some EventLoop) {
            transfer.idleCheckFired(task)
        }
    }

    private func mapped(_ error: any Error) -> WebImageError {
        state.withLock { $0.failure } ?? TransportErrorMapping.webImageError(
            for: error, url: operation.request.url, redirectLimit: config.maximumRedirects)
    }

    /// Hands the outcome to the operation, once.
    private func end(_ outcome: Result<TransferOutput, WebImageError>) {
        let (first, idleCheck) = state.withLock { state in
            defer { state.isEnded = true; state.idleCheck = nil; state.task = nil }
            return (!state.isEnded, state.idleCheck)
        }
        idleCheck?.cancel()
        guard first else { return }
        progressive.withLock { $0 }?.finish()
        if case .failure = outcome { state.withLock { $0.body = Self.emptyBody(for: operation) } }
        operation.transferEnded(outcome, metrics: metrics())
    }

    /// Stops the transfer for `error`, which the callers will get.
    private func fail(_ task: any TransferTask, _ error: WebImageError) -> EventLoopFuture<Void> {
        state.withLock { $0.failure = $0.failure ?? error }
        task.fail(reason: error)
        return task.eventLoop.makeFailedFuture(error)
    }

    private func startProgressiveDecoding() {
        let operation = self.operation
        let url = operation.url
        let decoding = ProgressiveDecoding(
            coder: LoaderDecoding.coder(for: operation.context),
            options: LoaderDecoding.decodeOptions(for: url, options: operation.options, context: operation.context),
            bytes: { [weak self] from in
                self?.state.withLock { state in
                    state.body.bytes(from: from)
                } ?? Data()
            },
            deliver: { [weak self] image in
                guard let (received, expected) = self?.state.withLock({ ($0.received, $0.expected) }) else { return }
                operation.deliverProgress(ImageLoaderProgress(
                    receivedSize: received, expectedSize: expected, url: url, partialImage: image))
            })
        progressive.withLock { $0 = decoding }
    }

    private func metrics() -> DownloadMetrics {
        let now = ContinuousClock.now
        return state.withLock { state in
            DownloadMetrics(
                url: operation.url, startDate: startDate, queueDuration: queueDuration.seconds,
                timeToResponse: state.responseAt.map { startedAt.duration(to: $0).seconds },
                duration: startedAt.duration(to: now).seconds, receivedBytes: state.received,
                statusCode: state.response?.statusCode, redirectCount: max(0, state.heads - 1))
        }
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
