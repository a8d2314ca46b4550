import Foundation
import NIOCore

/// Everything one download decides, as a value: it takes the events of the download's hops — a
/// head, a body part, the hop's end or failure, the idle timer, a cancel — and returns what to do.
/// ``DownloadTransfer`` only carries the actions out, on whichever carrier moves the bytes, so every
/// carrier gets the same rules: the redirect chain, the head's checks, the body budget (a redirect's
/// body counted, not kept), the idle and resource deadlines, the retry of a request a kept-alive
/// connection dropped unanswered, progress pacing, error mapping and one end.
struct DownloadRequestState {
    /// What the transfer does next.
    enum Action {
        case none
        /// Ask the hop policy about this request, then carry it.
        case send(DownloadRequest)
        /// Carry the hop's request once more, to the address the hop policy allowed it (not asked
        /// again: a second answer could name another address).
        case resend(DownloadRequest)
        /// Stop the hop in flight; its callers get `error`.
        case stopHop(WebImageError)
        /// Tell the callers how far the body is.
        case progress(received: Int64, expected: Int64)
        /// The download is over (this comes once).
        case finish(Result<TransferOutput, WebImageError>)
    }

    /// What a hop's head is.
    enum Head {
        /// A redirect this download follows: its body is read, not kept.
        case redirect
        /// The answer from `url`: to be checked (``ResponseAcceptance``, which runs app code, so
        /// outside any lock), then handed to ``accept(_:now:)``.
        case answer(URL)
    }

    /// What the timer finds.
    enum Timer {
        /// The download is over, or has no time limit: no more looks.
        case over
        /// A limit passed: do this.
        case expired(Action)
        /// Look again then.
        case recheck(NIODeadline)
    }

    /// What a download may take: the downloader's, fixed for all its downloads.
    struct Limits: Sendable {
        let responseSize: Int64
        let spill: BodySpill?
        let redirects: Int
        let progressInterval: Double
        let resourceTimeout: TimeAmount?

        init(_ config: DownloaderConfig) {
            responseSize = config.maximumResponseSize
            spill = config.bodySpill
            redirects = config.maximumRedirects
            progressInterval = config.minimumProgressInterval
            resourceTimeout = config.resourceTimeout.flatMap { TimeAmount.limit(seconds: $0) }
        }
    }

    /// The hop in flight, or the next one.
    private(set) var request: DownloadRequest
    private(set) var response: DownloadResponse?
    private(set) var received: Int64 = 0
    private(set) var expected: Int64 = -1
    /// Response heads seen, redirects' included.
    private(set) var heads = 0
    private(set) var responseAt: NIODeadline?
    /// When the last head or body part arrived (or the download started): the idle timer's mark.
    private(set) var lastActivity: NIODeadline
    /// A hop is on a carrier (not between hops, not with the hop policy).
    private(set) var hopInFlight = false
    /// The hop's request went out once more (a hop is retried at most once).
    private var resent = false
    private(set) var isEnded = false
    /// The hop's body (a redirect's is counted, not kept).
    private(set) var body: ResponseBody
    private var redirects: RedirectChain
    /// Where the response in flight redirects, and its status.
    private var redirect: (target: URL, status: UInt)?
    private var visitedURL: URL?
    private var lastReportedFraction = -1.0
    /// Why we stopped the download ourselves: it wins over what the carrier reports after.
    private var failure: WebImageError?
    private let firstURL: URL
    private let limit: Int64
    private let spill: BodySpill?
    private let redirectLimit: Int
    private let minimumProgressInterval: Double
    private let idleTimeout: TimeAmount?
    /// When the whole download must be over (``DownloaderConfig/resourceTimeout``).
    private let deadline: NIODeadline?

    /// `spills`: a large body may wait in a file (not when progressive decoding reads it as it grows).
    init(request: DownloadRequest, limits: Limits, spills: Bool, now: NIODeadline) {
        deadline = limits.resourceTimeout.map { now + $0 }
        self.request = request
        firstURL = request.url
        limit = limits.responseSize
        spill = spills ? limits.spill : nil
        redirectLimit = limits.redirects
        minimumProgressInterval = limits.progressInterval
        idleTimeout = TimeAmount.limit(seconds: request.timeout)
        redirects = RedirectChain(from: request.url, limit: limits.redirects)
        body = ResponseBody(limit: limits.responseSize, spill: spill)
        lastActivity = now
    }

    // MARK: Hops

    /// The hop policy allowed `next`: the request to carry, or the error that ends the download
    /// when it ended or failed meanwhile.
    mutating func allowed(_ next: DownloadRequest) -> Result<DownloadRequest, WebImageError> {
        request = next
        redirect = nil
        guard !isEnded, failure == nil else { return .failure(failure ?? .cancelled) }
        return .success(next)
    }

    /// A carrier took the hop; `true` when it must be stopped at once (the download ended meanwhile).
    mutating func carried() -> Bool {
        guard !isEnded, failure == nil else { return true }
        hopInFlight = true
        return false
    }

    /// A head arrived from `url` (each hop's, the last included).
    mutating func visited(_ url: URL, now: NIODeadline) {
        heads += 1
        visitedURL = url
        lastActivity = now
    }

    mutating func head(status: Int, location: String?) -> Head {
        redirect = redirects.target(status: status, location: location, from: request.url).map { ($0, UInt(status)) }
        return redirect == nil ? .answer(visitedURL ?? request.url) : .redirect
    }

    /// The checks' verdict on the answer's head: progress from zero, or the hop stopped.
    mutating func accept(_ verdict: ResponseAcceptance.Verdict, now: NIODeadline) -> Action {
        let refusal: WebImageError?
        switch verdict {
        case .accepted(let accepted):
            (response, refusal) = (accepted, nil)
        case .refused(let error, let refused):
            (response, refusal) = (refused, error)
            guard refused != nil else { return stop(error) }
        }
        expected = response!.expectedContentLength
        (responseAt, lastActivity) = (now, now)
        if let refusal { return stop(refusal) }
        // Room up front only for an accepted body, never past the limit: a 304 has none, whatever it declares.
        if expected > 0, response!.statusCode != 304 { body.reserve(expected) }
        return .progress(received: 0, expected: expected)
    }

    mutating func bodyArrived(_ buffer: ByteBuffer, now: NIODeadline) -> Action {
        lastActivity = now
        // A redirect's body is read (the connection stays reusable) but not kept, and has the same limit.
        if redirect != nil { return body.discard(buffer) ? .none : stop(.transport(.responseTooLarge(limit: limit))) }
        received += Int64(buffer.readableBytes)
        guard body.append(buffer) else { return stop(.transport(.responseTooLarge(limit: limit))) }
        return shouldReport() ? .progress(received: received, expected: expected) : .none
    }

    /// The hop's response ended: the next hop, or the end.
    mutating func hopEnded() -> Action {
        hopInFlight = false
        if let (target, status) = redirect {
            body = ResponseBody(limit: limit, spill: spill)
            resent = false
            switch redirects.follow(request, to: target, status: status) {
            case .success(let next): return .send(next)
            case .failure(let error): return end(.failure(mapped(error)))
            }
        }
        guard let response else { return end(.failure(.transport(.badServerResponse(reason: "no response head")))) }
        return end(.success(TransferOutput(data: body.data(), response: response)))
    }

    /// The carrier failed the hop (our own stop reason wins). `unanswered`: the request went out
    /// on a kept-alive connection that closed before any response, which a server may do to an
    /// idle connection just as a request arrives (RFC 9112 §9.3.1): the hop goes once more.
    mutating func hopFailed(_ error: any Error, unanswered: Bool = false) -> Action {
        hopInFlight = false
        if unanswered, !resent, !isEnded, failure == nil {
            resent = true
            return .resend(request)
        }
        return end(.failure(mapped(error)))
    }

    /// The download is cancelled: the hop in flight stops, or — between hops — it ends.
    mutating func cancel() -> Action {
        hopInFlight ? stop(.cancelled) : end(.failure(failure ?? .cancelled))
    }

    /// When the timer must look next: the idle limit from the last activity, or the deadline.
    var nextCheck: NIODeadline? {
        guard !isEnded else { return nil }
        let idle = idleTimeout.map { lastActivity + $0 }
        guard let deadline else { return idle }
        return idle.map { min($0, deadline) } ?? deadline
    }

    /// The timer at `now`: past the deadline, a resource timeout; nothing for the request's whole
    /// idle timeout — connecting, waiting for the head, between body parts — a read timeout.
    mutating func timerFired(now: NIODeadline) -> Timer {
        guard let next = nextCheck else { return .over }
        guard now >= next else { return .recheck(next) }
        let error = WebImageError.transport(.timedOut(deadline.map { now >= $0 } == true ? .resource : .read))
        return .expired(hopInFlight ? stop(error) : end(.failure(error)))
    }

    /// The body so far from `offset` (progressive decoding reads it as it grows).
    func bytes(from offset: Int) -> Data { body.bytes(from: offset) }

    /// What the download cost, `startedAt` to `now`.
    func metrics(url: URL, startDate: Date, queueDuration: Duration, startedAt: NIODeadline, now: NIODeadline) -> DownloadMetrics {
        DownloadMetrics(
            url: url, startDate: startDate, queueDuration: queueDuration.seconds,
            timeToResponse: responseAt.map { ($0 - startedAt).seconds }, duration: (now - startedAt).seconds,
            receivedBytes: received, statusCode: response?.statusCode, redirectCount: max(0, heads - 1))
    }

    // MARK: Internals

    private mutating func stop(_ error: WebImageError) -> Action {
        failure = failure ?? error
        return .stopHop(failure!)
    }

    private mutating func end(_ outcome: Result<TransferOutput, WebImageError>) -> Action {
        guard !isEnded else { return .none }
        (isEnded, hopInFlight) = (true, false)
        if case .failure = outcome { body = ResponseBody(limit: limit, spill: nil) }  // a spilled file goes now
        return .finish(outcome)
    }

    private func mapped(_ error: any Error) -> WebImageError {
        failure ?? TransportErrorMapping.webImageError(for: error, url: firstURL, redirectLimit: redirectLimit)
    }

    /// SD's `minimumProgressInterval`: report when the fraction moved by at least the interval,
    /// always when the size is unknown, and always the last chunk.
    private mutating func shouldReport() -> Bool {
        guard expected > 0 else { return true }
        let fraction = Double(received) / Double(expected)
        guard minimumProgressInterval > 0, received < expected, fraction - lastReportedFraction < minimumProgressInterval else {
            lastReportedFraction = fraction
            return true
        }
        return false
    }
}

extension TimeAmount {
    var seconds: TimeInterval { TimeInterval(nanoseconds) / 1e9 }
}
