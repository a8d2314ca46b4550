import Foundation
import HTTPTypes
import NIOCore

/// Everything one download decides, as a value: it takes the events of the download's hops — a
/// head, a body part, the hop's end or failure, the idle timer, a cancel — and returns what to do.
/// ``DownloadTransfer`` only carries the actions out, on whichever carrier moves the bytes, so every
/// carrier gets the same rules: the redirect chain, the head's checks, the body budget (a redirect's
/// body counted, not kept), the idle and resource deadlines, the retry of a request a kept-alive
/// connection dropped unanswered, progress pacing and one end.
///
/// Where the download is is one ``Phase``; an event its phase cannot take (a head with no hop in
/// flight) is a bug in a carrier or the transfer, a trap in debug builds.
struct DownloadRequestState {
    /// Where the download is.
    enum Phase {
        /// No hop on a carrier: before the first, between hops (the hop policy deciding), or
        /// before a resend. `resent`: the next hop is the last one's second try.
        case idle(resent: Bool)
        /// Hop number `hop` is on its carrier; `redirects` once its head said it leads elsewhere
        /// (the next hop's request is ``nextHop``, once built).
        case inFlight(hop: Int, redirects: Bool, resent: Bool)
        /// We stopped hop `hop` for `error`: whatever its carrier reports next ends the download with it.
        case stopping(hop: Int, WebImageError)
        case ended
    }

    /// What a carrier that took a hop does with it.
    enum Carried {
        /// Keep it as the hop in flight.
        case inFlight
        /// Stop it at once: the download ended, or was stopped, before it started.
        case stop
        /// Nothing: it has already ended (its carrier was quicker than its sender).
        case over
    }

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
        /// A redirect this download would follow (its body is read, not kept): the next hop's
        /// request, `method` to `target`, is to be built — app code, so outside any lock — and
        /// handed to ``redirecting(to:)``, or the redirect turned down (``notRedirecting()``).
        case redirect(to: URL, method: HTTPRequest.Method)
        /// Nothing to do: a head of a hop being stopped.
        case ignore
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
    private(set) var phase = Phase.idle(resent: false)
    /// Hops handed to a carrier so far (the one in flight is the last).
    private(set) var hops = 0
    /// The hop's body (a redirect's is counted, not kept).
    private(set) var body: ResponseBody
    private var redirects: RedirectChain
    private var visitedURL: URL?
    /// The request built for the redirect the hop in flight announced (kept out of ``Phase``,
    /// which every body part reads).
    private var nextHop: DownloadRequest?
    private var lastReportedFraction = -1.0
    private let limit: Int64
    private let spill: BodySpill?
    private let minimumProgressInterval: Double
    private let idleTimeout: TimeAmount?
    /// When the whole download must be over (``DownloaderConfig/resourceTimeout``).
    private let deadline: NIODeadline?

    /// `spills`: a large body may wait in a file (not when progressive decoding reads it as it grows).
    init(request: DownloadRequest, limits: Limits, spills: Bool, now: NIODeadline) {
        deadline = limits.resourceTimeout.map { now + $0 }
        self.request = request
        limit = limits.responseSize
        spill = spills ? limits.spill : nil
        minimumProgressInterval = limits.progressInterval
        idleTimeout = TimeAmount.limit(seconds: request.timeout)
        redirects = RedirectChain(from: request.url, limit: limits.redirects)
        body = ResponseBody(limit: limits.responseSize, spill: spill)
        lastActivity = now
    }

    // MARK: Hops

    /// The hop policy allowed `next`: the request to carry (a hop now in flight, number ``hops``),
    /// or the error that ends the download when it ended meanwhile.
    mutating func allowed(_ next: DownloadRequest) -> Result<DownloadRequest, WebImageError> {
        switch phase {
        case .idle(let resent):
            request = next
            hops += 1
            phase = .inFlight(hop: hops, redirects: false, resent: resent)
            return .success(next)
        case .ended:
            return .failure(.cancelled)
        case .inFlight, .stopping:
            return invalid("a hop allowed while another is in flight", .failure(.cancelled))
        }
    }

    /// A carrier took hop number `hop`.
    func carried(hop: Int) -> Carried {
        switch phase {
        case .inFlight(hop, _, _): .inFlight
        case .stopping(hop, _), .ended: .stop
        case .idle, .inFlight, .stopping: .over
        }
    }

    /// A head arrived from `url` (each hop's, the last included).
    mutating func visited(_ url: URL, now: NIODeadline) {
        heads += 1
        visitedURL = url
        lastActivity = now
    }

    mutating func head(status: Int, location: String?) -> Head {
        switch phase {
        case .inFlight(let hop, false, let resent):
            guard let target = redirects.target(status: status, location: location, from: request.url) else {
                return .answer(visitedURL ?? request.url)
            }
            phase = .inFlight(hop: hop, redirects: true, resent: resent)
            nextHop = nil
            return .redirect(to: target, method: RedirectChain.method(after: status, of: request.method))
        case .stopping, .ended:
            return .ignore
        case .idle, .inFlight:
            return invalid("a head with no hop waiting for one", .ignore)
        }
    }

    /// The request built for the redirect the head announced: the hop after this one.
    mutating func redirecting(to next: DownloadRequest) {
        guard case .inFlight(_, true, _) = phase else { return }
        nextHop = next
    }

    /// The redirect handler stopped the chain: the redirect's head is the answer (from its URL).
    mutating func notRedirecting() -> URL {
        if case .inFlight(let hop, true, let resent) = phase { phase = .inFlight(hop: hop, redirects: false, resent: resent) }
        return visitedURL ?? request.url
    }

    /// The hop in flight fails for `error` (the next hop's request was refused).
    mutating func fail(_ error: WebImageError) -> Action {
        stop(error)
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
        guard case .inFlight = phase else { return .none }
        // Room up front only for an accepted body, never past the limit: a 304 has none, whatever it declares.
        if expected > 0, response!.statusCode != 304 { body.reserve(expected) }
        return .progress(received: 0, expected: expected)
    }

    mutating func bodyArrived(_ buffer: ByteBuffer, now: NIODeadline) -> Action {
        lastActivity = now
        switch phase {
        case .inFlight(_, true, _):
            // A redirect's body is read (the connection stays reusable) but not kept, and has the same limit.
            return body.discard(buffer) ? .none : stop(.transport(.responseTooLarge(limit: limit)))
        case .inFlight:
            received += Int64(buffer.readableBytes)
            guard body.append(buffer) else { return stop(.transport(.responseTooLarge(limit: limit))) }
            return shouldReport() ? .progress(received: received, expected: expected) : .none
        case .stopping, .ended:
            return .none
        case .idle:
            return invalid("a body part with no hop in flight", .none)
        }
    }

    /// The hop's response ended: the next hop, or the end.
    mutating func hopEnded() -> Action {
        switch phase {
        case .inFlight(_, true, _):
            body = ResponseBody(limit: limit, spill: spill)
            defer { nextHop = nil }
            guard let next = nextHop else {
                return invalid("a redirect ended before its next request was built", end(.failure(.transport(.badServerResponse(reason: "a redirect with no next request")))))
            }
            switch redirects.follow(next) {
            case .success(let next):
                phase = .idle(resent: false)
                return .send(next)
            case .failure(let error):
                return end(.failure(error))
            }
        case .inFlight:
            guard let response else { return end(.failure(.transport(.badServerResponse(reason: "no response head")))) }
            return end(.success(TransferOutput(data: body.data(), response: response)))
        case .stopping(_, let error):
            return end(.failure(error))
        case .ended:
            return .none
        case .idle:
            return invalid("a hop ended with none in flight", .none)
        }
    }

    /// The carrier failed the hop (our own stop reason wins). `unanswered`: the request went out
    /// on a kept-alive connection that closed before any response, which a server may do to an
    /// idle connection just as a request arrives (RFC 9112 §9.3.1): the hop goes once more.
    mutating func hopFailed(_ error: WebImageError, unanswered: Bool = false) -> Action {
        switch phase {
        case .inFlight(_, _, false) where unanswered:
            phase = .idle(resent: true)
            return .resend(request)
        case .stopping(_, let reason):
            return end(.failure(reason))
        case .idle, .inFlight:
            // Between hops: the hop policy refused, or a carrier could not take the hop.
            return end(.failure(error))
        case .ended:
            return .none
        }
    }

    /// The download is cancelled: the hop in flight stops, or — between hops — it ends.
    mutating func cancel() -> Action {
        if case .idle = phase { return end(.failure(.cancelled)) }
        return stop(.cancelled)
    }

    /// When the timer must look next: the idle limit from the last activity, or the deadline.
    var nextCheck: NIODeadline? {
        if case .ended = phase { return nil }
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
        if case .idle = phase { return .expired(end(.failure(error))) }
        return .expired(stop(error))
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

    /// Stops the hop in flight for `error`; a hop already being stopped keeps its first reason.
    private mutating func stop(_ error: WebImageError) -> Action {
        switch phase {
        case .inFlight(let hop, _, _):
            phase = .stopping(hop: hop, error)
            return .stopHop(error)
        case .stopping(_, let first):
            return .stopHop(first)
        case .ended:
            return .none
        case .idle:
            return invalid("a stop with no hop in flight", end(.failure(error)))
        }
    }

    private mutating func end(_ outcome: Result<TransferOutput, WebImageError>) -> Action {
        if case .ended = phase { return .none }
        phase = .ended
        if case .failure = outcome { body = ResponseBody(limit: limit, spill: nil) }  // a spilled file goes now
        return .finish(outcome)
    }

    /// An event the phase cannot take: a trap in debug builds, `fallback` in release ones.
    private func invalid<T>(_ what: String, _ fallback: T) -> T {
        assertionFailure("DownloadRequestState: \(what) (\(phase))")
        return fallback
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
