import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Synchronization

/// The keep-alive connection one bulk prefetch worker owns on ``HTTP1Transport``: it fetches one
/// request at a time, the next written from the event loop the last one ended on — the shape of
/// `curl --parallel`, without the per-download operation, token, transfer and exchange an
/// ordinary download makes (BENCHMARKS.md, "Bulk download").
///
/// Kept from the ordinary path: the head's checks (``ResponseAcceptance``), cookies from every
/// head, the size limit while the body streams, the request's idle timeout and the config's
/// resource timeout from the moment the fetch starts (connecting included), one retry of a
/// request a reused connection dropped before answering, and cancel. Each fetch ends exactly once.
final class HTTP1BulkConnection: Sendable {
    enum Outcome: Sendable {
        /// The head was accepted and the whole body is in.
        case response(DownloadResponse, Data)
        /// The response (with `status`) redirects there (``RedirectChain``); the caller decides whether to follow.
        case redirect(URL, status: UInt)
        /// The fetch failed; `response` is what callers see of a head that was refused.
        case failure(any Error, response: DownloadResponse?)
    }

    private struct State {
        var channel: (any Channel)?
        /// The current channel's reader: it hears of each request written. Forgotten with the
        /// channel (it holds this connection: kept, the two would keep each other).
        var reader: Reader?
        var routeKey: String?
        /// `scheme://authority/` of the URL the current channel was opened for.
        var originPrefix: String?
        /// Which channel is current: events of an older one are stale.
        var generation = 0
        var fetch: HTTP1BulkFetch?
        /// The pending timer and when it fires: one per connection, moved earlier only when a
        /// fetch needs a check before it.
        var timer: NIOScheduledCallback?
        var timerDeadline: NIODeadline?

        /// The fetch in flight, when it is `owner`'s (nil: anyone's).
        func isCurrent(_ owner: ObjectIdentifier?) -> Bool {
            guard let fetch else { return false }
            return owner.map { fetch.owner == $0 } ?? true
        }
    }

    let eventLoop: any EventLoop
    private let transport: HTTP1Transport
    /// The downloader's: limits, accepted statuses and types, resource timeout.
    private let config: DownloaderConfig
    private let tlsConfiguration: TLSConfiguration?
    private let state = Mutex(State())

    init(transport: HTTP1Transport, config: DownloaderConfig, eventLoop: any EventLoop, tlsConfiguration: TLSConfiguration?) {
        self.transport = transport
        self.config = config
        self.eventLoop = eventLoop
        self.tlsConfiguration = tlsConfiguration
    }

    /// Fetches `request` for `owner`: its head checked with `responseModifier`, its cookies stored
    /// in `cookieJar`, a redirect (by `redirects`' rules) handed back. ``cancel(owner:)`` ends it
    /// with `HTTPClientError.cancelled`, and so does a `stopped` that says so as it starts (a stop
    /// asked for just before the fetch existed). Everything that moves a fetch along — starting,
    /// connecting, reading, cancelling, the timer — runs on the connection's event loop, in order.
    nonisolated(nonsending) func fetch(
        _ request: DownloadRequest, owner: AnyObject, responseModifier: (any DownloadResponseModifying)?, cookieJar: CookieJar?,
        redirects: RedirectChain, stopped: @escaping @Sendable () -> Bool
    ) async -> Outcome {
        let owner = ObjectIdentifier(owner)
        return await withUnsafeContinuation { continuation in
            let deadline = config.resourceTimeout.flatMap { TimeAmount.limit(seconds: $0) }.map { NIODeadline.now() + $0 }
            let fetch = HTTP1BulkFetch(
                owner: owner, request: request, responseModifier: responseModifier, cookieJar: cookieJar,
                redirects: redirects, continuation: continuation, deadline: deadline,
                body: ResponseBody(limit: config.maximumResponseSize, spill: config.bodySpill))
            // The worker runs on this loop (``EventLoopTaskExecutor``): no hop.
            onLoop { self.start(fetch, stopped: stopped) }
        }
    }

    /// Ends `owner`'s fetch, if it is the one in flight, as cancelled; its connection closes, as
    /// its response is not wanted.
    func cancel(owner: AnyObject) {
        let owner = ObjectIdentifier(owner)
        onLoop { self.cancel(owner: owner) }
    }

    private func onLoop(_ work: @escaping @Sendable () -> Void) {
        if eventLoop.inEventLoop { work() } else { eventLoop.execute(work) }
    }

    private func start(_ fetch: HTTP1BulkFetch, stopped: @Sendable () -> Bool) {
        state.withLock { $0.fetch = fetch }
        if stopped() { return cancel(owner: fetch.owner) }
        send()
    }

    private func cancel(owner: ObjectIdentifier) {
        let channel = state.withLock { state -> (any Channel)?? in
            guard state.isCurrent(owner) else { return .none }
            state.fetch!.failure = state.fetch!.failure ?? HTTPClientError.cancelled
            return .some(state.channel)
        }
        switch channel {
        case .none: return
        case .some(let channel?): channel.close(promise: nil)
        case .some(nil): end(with: nil, owner: owner)  // still connecting
        }
    }

    /// Closes the connection once the worker is done with it.
    func close() {
        let channel = state.withLock { state in
            defer { state.channel = nil; state.reader = nil; state.generation += 1 }
            return state.channel
        }
        channel?.close(promise: nil)
    }

    // MARK: Sending

    /// Writes the fetch's request on the open connection to its host, or connects first. The
    /// timer covers the fetch from here, connecting included.
    private func send() {
        let now = NIODeadline.now()
        guard let fetch = state.withLock({ $0.fetch }) else { return }
        let request = fetch.request
        if let check = fetch.nextCheck(now) { armTimer(at: check) }
        // The next URL of the same origin (`scheme://authority/`, the common case) takes the open
        // connection without working out its route again.
        let open = state.withLock { state -> (any Channel)? in
            guard let prefix = state.originPrefix, let channel = state.channel, Self.bytes(of: request.url.absoluteString, startWith: prefix)
            else { return nil }
            return channel
        }
        if let open { return write(request, on: open, opened: false) }
        let route: HTTP1Transport.Route
        do { route = try HTTP1Transport.Route(request.url, tlsConfiguration: tlsConfiguration) } catch { return end(with: error) }
        let reusable = state.withLock { state -> (any Channel)? in
            guard state.routeKey == route.key, let channel = state.channel else { return nil }
            return channel
        }
        if let reusable { return write(request, on: reusable, opened: false) }
        let (stale, generation) = state.withLock { state in
            defer {
                state.channel = nil
                state.reader = nil
                state.routeKey = route.key
                state.originPrefix = Self.originPrefix(of: request.url)
                state.generation += 1
            }
            return (state.channel, state.generation + 1)
        }
        stale?.close(promise: nil)
        let reader = Reader(connection: self, generation: generation)
        transport.connect(route, tlsConfiguration: tlsConfiguration, handler: reader, on: eventLoop).whenComplete { [self] result in
            switch result {
            case .failure(let error):
                if state.withLock({ $0.generation == generation }) { end(with: error) }
            case .success(let channel):
                // Kept even when the fetch ended meanwhile (cancelled): the next one takes it.
                let (current, waiting) = state.withLock { state in
                    guard state.generation == generation else { return (false, DownloadRequest?.none) }
                    state.channel = channel
                    state.reader = reader
                    return (true, state.fetch?.request)
                }
                guard current else { return channel.close(promise: nil) }
                if let waiting { write(waiting, on: channel, opened: true) }
            }
        }
    }

    /// Whether `text`'s UTF-8 begins with `prefix`'s, byte for byte: `hasPrefix` compares characters
    /// (canonical equivalence), and `utf8.starts(with:)` walks two views an index at a time.
    private static func bytes(of text: String, startWith prefix: String) -> Bool {
        var text = text, prefix = prefix
        return text.withUTF8 { text in
            prefix.withUTF8 { prefix in
                guard text.count >= prefix.count else { return false }
                guard let start = text.baseAddress, let wanted = prefix.baseAddress else { return true }
                return memcmp(start, wanted, prefix.count) == 0
            }
        }
    }

    /// `scheme://authority/` as `url` spells it; nil when it has no path after the authority.
    private static func originPrefix(of url: URL) -> String? {
        let text = url.absoluteString
        guard let schemeEnd = text.range(of: "://"),
              let slash = text[schemeEnd.upperBound...].firstIndex(of: "/") else { return nil }
        return String(text[...slash])
    }

    /// Writes `request` on `channel` — one `opened` for it, or one already open.
    private func write(_ request: DownloadRequest, on channel: any Channel, opened: Bool) {
        let reader = state.withLock { state in
            state.fetch?.onOpenConnection = !opened
            return state.reader
        }
        reader?.requestWritten(request)
        channel.writeAndFlush(request.http1Bytes(allocator: channel.allocator), promise: nil)
    }

    // MARK: Receiving

    fileprivate func received(_ part: HTTP1ResponseParser.Event, generation: Int) {
        switch part {
        case .head(let head): headArrived(head, generation: generation)
        case .body(let buffer):
            let tooLarge = state.withLock { state -> Bool in
                guard state.generation == generation, let fetch = state.fetch, fetch.failure == nil else { return false }
                fetch.lastActivity = .now()
                // A redirect's body is read but not kept, and has the same limit.
                guard fetch.redirect == nil ? fetch.body.append(buffer) : fetch.body.discard(buffer) else {
                    fetch.failure = WebImageError.transport(.responseTooLarge(limit: config.maximumResponseSize))
                    return true
                }
                return false
            }
            if tooLarge { closeChannel(generation) }
        case .end:
            let ended = state.withLock { state -> (UnsafeContinuation<Outcome, Never>, Outcome, reusable: Bool)? in
                guard state.generation == generation, let fetch = state.fetch.take() else { return nil }
                // Stopped by us (refused, too large, cancelled, timed out) but the whole response is
                // in before the close: it ends now, and the connection with it.
                if let failure = fetch.failure { return (fetch.continuation, .failure(failure, response: fetch.response), false) }
                if let redirect = fetch.redirect {
                    return (fetch.continuation, .redirect(redirect.target, status: redirect.status), fetch.keepAlive)
                }
                guard let response = fetch.response else {
                    let error = WebImageError.transport(.badServerResponse(reason: "no response head"))
                    return (fetch.continuation, .failure(error, response: nil), false)
                }
                return (fetch.continuation, .response(response, fetch.body.data()), fetch.keepAlive)
            }
            guard let (continuation, outcome, reusable) = ended else { return }
            if !reusable { retire(generation) }
            continuation.resume(returning: outcome)
        }
    }

    /// A head: cookies stored and checks run outside the lock (the jar and the response modifier
    /// are app code that may call back in), then the verdict recorded.
    private func headArrived(_ head: HTTP1ResponseParser.Head, generation: Int) {
        let now = NIODeadline.now()
        let current = state.withLock { state -> HTTP1BulkFetch? in
            guard state.generation == generation, let fetch = state.fetch else { return nil }
            fetch.lastActivity = now
            fetch.keepAlive = head.keepAlive
            return fetch
        }
        guard let fetch = current else { return }
        let (owner, url) = (fetch.owner, fetch.request.url)
        if let jar = fetch.cookieJar { jar.store(setCookieHeaders: head.fields[values: .setCookie], from: url) }
        if let target = fetch.redirects.target(status: head.status, location: head.location, from: url) {
            return state.withLock { state in
                if state.generation == generation, state.isCurrent(owner) { state.fetch!.redirect = (target, UInt(head.status)) }
            }
        }
        let verdict = ResponseAcceptance.verdict(
            status: head.status, fields: head.fields, url: url, config: config, modifier: fetch.responseModifier)
        let refused = state.withLock { state -> Bool in
            guard state.generation == generation, state.isCurrent(owner) else { return false }
            switch verdict {
            case .accepted(let response):
                state.fetch!.response = response
                let expected = response.expectedContentLength
                if expected > 0, response.statusCode != 304 {
                    state.fetch!.body.reserve(expected)
                }
                return false
            case .refused(let error, let response):
                state.fetch!.response = response
                state.fetch!.failure = state.fetch!.failure ?? error
                return true
            }
        }
        // A refused body is not read: the connection goes, as with the ordinary path.
        if refused { closeChannel(generation) }
    }

    /// The channel closed (or failed): a fetch still waiting ends, or is retried once on a new
    /// connection when a reused one closed before any head arrived.
    fileprivate func closed(generation: Int, error: (any Error)?) {
        let retry = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.channel = nil
            state.reader = nil
            state.routeKey = nil
            state.originPrefix = nil
            guard let fetch = state.fetch, fetch.failure == nil, fetch.onOpenConnection,
                  fetch.response == nil, fetch.redirect == nil, !fetch.retried
            else { return false }
            fetch.retried = true
            return true
        }
        if retry { return send() }
        if state.withLock({ $0.generation == generation }) { end(with: error ?? ChannelError.eof) }
    }

    /// Closes a channel whose fetch is over and that may carry no other (`Connection: close`):
    /// forgotten first, so the next fetch connects anew instead of writing to it while it closes.
    private func retire(_ generation: Int) {
        let channel = state.withLock { state -> (any Channel)? in
            guard state.generation == generation else { return nil }
            defer {
                state.channel = nil
                state.reader = nil
                state.routeKey = nil
                state.originPrefix = nil
                state.generation += 1
            }
            return state.channel
        }
        channel?.close(promise: nil)
    }

    /// Closes the channel of the fetch in flight; its end comes with the close.
    private func closeChannel(_ generation: Int) {
        let channel = state.withLock { $0.generation == generation ? $0.channel : nil }
        channel?.close(promise: nil)
    }

    /// Ends the fetch in flight (only `owner`'s, when given) with our own failure, or else
    /// `error` (nil: cancelled).
    private func end(with error: (any Error)?, owner: ObjectIdentifier? = nil) {
        let fetch = state.withLock { state in state.isCurrent(owner) ? state.fetch.take() : nil }
        guard let fetch else { return }
        let failure = fetch.failure ?? error ?? HTTPClientError.cancelled
        fetch.continuation.resume(returning: .failure(failure, response: fetch.response))
    }

    // MARK: Timer

    /// Makes sure the timer fires by `deadline`: one timer per connection, re-armed for the rest
    /// of the time while fetches keep arriving (not one per fetch). Nothing from the server for
    /// the request's timeout fails the fetch as a read timeout, and the resource deadline as a
    /// whole-request timeout. On the event loop.
    private func armTimer(at deadline: NIODeadline) {
        let earlier = state.withLock { state -> NIOScheduledCallback?? in
            if let armed = state.timerDeadline, armed <= deadline { return .none }
            defer { state.timerDeadline = deadline }
            return .some(state.timer)
        }
        guard case .some(let replaced) = earlier else { return }
        replaced?.cancel()
        let timer = try? eventLoop.scheduleCallback(at: deadline, handler: TimerFired(connection: self))
        state.withLock { state in
            if state.timerDeadline == deadline { state.timer = timer }
            if timer == nil { state.timerDeadline = nil }
        }
    }

    fileprivate func timerFired() {
        let now = NIODeadline.now()
        let (next, expired) = state.withLock { state -> (NIODeadline?, Bool) in
            state.timer = nil
            state.timerDeadline = nil
            guard let fetch = state.fetch else { return (nil, false) }
            var error: (any Error)?
            if let deadline = fetch.deadline, now >= deadline {
                error = WebImageError.transport(.timedOut(.resource))
            } else if let timeout = fetch.idleTimeout, now - fetch.lastActivity >= timeout {
                error = WebImageError.transport(.timedOut(.read))
            }
            guard let error else { return (fetch.nextCheck(fetch.lastActivity), false) }
            fetch.failure = fetch.failure ?? error
            return (nil, true)
        }
        if let next { return armTimer(at: next) }
        guard expired else { return }
        let channel = state.withLock { $0.channel }
        if let channel { channel.close(promise: nil) } else { end(with: nil) }
    }

    private struct TimerFired: NIOScheduledCallbackHandler {
        let connection: HTTP1BulkConnection
        func handleScheduledCallback(eventLoop: some EventLoop) { connection.timerFired() }
    }
}

/// Reads one channel's responses for its ``HTTP1BulkConnection`` (``HTTP1ResponseParser``); a
/// new channel gets a new reader. Only its channel's event loop calls it; the lock keeps the
/// parser's state `Sendable`.
private final class Reader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let connection: HTTP1BulkConnection
    let generation: Int
    private let parser = Mutex(HTTP1ResponseParser())
    private let error = Mutex<(any Error)?>(nil)

    init(connection: HTTP1BulkConnection, generation: Int) {
        self.connection = connection
        self.generation = generation
    }

    func requestWritten(_ request: DownloadRequest) {
        parser.requestWritten(request)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let (events, failure) = parser.parse(unwrapInboundIn(data))
        for event in events { connection.received(event, generation: generation) }
        if let failure { errorCaught(context: context, error: failure) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.error.withLock { $0 = $0 ?? error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let (events, failure) = parser.close(failed: error.withLock { $0 } != nil)
        for event in events { connection.received(event, generation: generation) }
        if let failure { self.error.withLock { $0 = $0 ?? failure } }
        connection.closed(generation: generation, error: error.withLock { $0 })
    }
}
