import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// Runs one download for a ``DownloadRun``: carries out what its ``DownloadRequestState``
/// decides. Before each hop it asks the hop policy, then sends the hop on the downloader's
/// ``Carrier`` (which reports on an event loop, one hop each) and hands the machine every head,
/// body part, end and failure; it runs the response checks (the response modifier is app code,
/// so outside the lock), progress, cookies and progressive decoding, and shows the machine the
/// time (``TransferClock``). Nothing here decodes a full image.
final class DownloadTransfer: HopEvents {
    private struct State {
        var machine: DownloadRequestState
        /// The hop in flight, on its carrier.
        var task: (any CarriedHop)?
        /// Where the hop policy pinned the hop in flight, for a resend to go to the same address.
        var address: String?
        /// The clock that shows the machine the time, from the first hop on.
        var clock: TransferClock?
    }

    private let run: DownloadRun
    /// Hears the end, once.
    private let ended: @Sendable ((Result<TransferOutput, WebImageError>, DownloadMetrics)) -> Void
    private let startedAt = NIODeadline.now()
    private let startDate = Date()
    private let queueDuration: Duration
    private let state: Mutex<State>
    private let progressive = Mutex<ProgressiveDecoding?>(nil)
    /// Where this transfer sits in its clock's list; only the clock reads and writes it, under its lock.
    let clockSlot = Atomic<Int>(-1)

    init(
        run: DownloadRun, queueDuration: Duration,
        ended: @escaping @Sendable ((Result<TransferOutput, WebImageError>, DownloadMetrics)) -> Void
    ) {
        self.run = run
        self.ended = ended
        environment = run.environment
        self.queueDuration = queueDuration
        // Built in place: a machine made first and then stored would be copied.
        state = Mutex(State(machine: DownloadRequestState(
            request: run.request, limits: run.environment.limits, spills: !run.options.contains(.progressiveLoad),
            now: startedAt)))
    }

    private let environment: DownloadEnvironment

    // MARK: Hops

    /// Sends the first hop.
    func start() {
        send(state.withLock { $0.machine.request })
    }

    /// Stops the download: the hop in flight is cancelled, or — between hops — the transfer ends.
    func cancel() {
        perform(state.withLock { $0.machine.cancel() })
    }

    /// Asks the hop policy (when there is one) about `request`, then carries it.
    private func send(_ request: DownloadRequest) {
        guard let policy = environment.config.hopPolicy else { return carry(request, address: nil) }
        Task {
            do throws(WebImageError) {
                let hop = try await policy.allow(next: request.url)
                var request = request
                request.url = hop.url
                carry(request, address: hop.address)
            } catch {
                hopFailed(error)
            }
        }
    }

    private func carry(_ request: DownloadRequest, address: String?) {
        let allowed = state.withLock { state in
            state.address = address
            return state.machine.allowed(request).map { _ in state.machine.hops }
        }
        let hopNumber: Int
        switch allowed {
        case .success(let number): hopNumber = number
        case .failure(let error): return hopFailed(error)
        }
        let carrier = environment.carrier
        guard address == nil || carrier.capabilities.contains(.pinsAddress) else {
            return hopFailed(.invalidDownloadOperation(reason: "the carrier cannot connect to a pinned address"))
        }
        let hop = CarrierHop(request: request, address: address, skipsCertificateCheck: run.options.contains(.allowInvalidSSLCertificates))
        switch carrier.send(hop, to: self) {
        case .failure(let error): hopFailed(error)
        case .success(let task):
            let (carried, watch) = state.withLock { state -> (DownloadRequestState.Carried, NIODeadline?) in
                let carried = state.machine.carried(hop: hopNumber)
                guard case .inFlight = carried else { return (carried, nil) }
                state.task = task
                guard state.clock == nil, let next = state.machine.nextCheck else { return (carried, nil) }
                state.clock = environment.clocks.clock(for: task.eventLoop)
                return (carried, next)
            }
            if case .stop = carried { return task.stop(.cancelled) }
            if let watch { state.withLock { $0.clock }?.join(self, at: watch) }
        }
    }

    /// Does what the machine decided (on `task` when a hop is to be stopped, else the one in flight).
    private func perform(_ action: DownloadRequestState.Action, on task: (any CarriedHop)? = nil) {
        switch action {
        case .none: return
        case .send(let next):
            state.withLock { $0.task = nil }
            send(next)
        case .resend(let request):
            let address = state.withLock { state in
                state.task = nil
                return state.address
            }
            carry(request, address: address)
        case .stopHop(let error):
            (task ?? state.withLock { $0.task })?.stop(error)
        case .progress(let received, let expected):
            run.deliverProgress(ImageLoaderProgress(receivedSize: received, expectedSize: expected, url: run.url))
        case .finish(let outcome):
            let clock = state.withLock { state in
                defer { state.task = nil }
                return state.clock
            }
            clock?.leave(self)
            progressive.withLock { $0 }?.finish()
            ended((outcome, metrics()))
        }
    }

    // MARK: HopEvents

    /// A hop's head (each hop of a redirect chain, the last one included): its cookies are kept,
    /// then it is a redirect to follow — whose next request is built now, by app code — or the answer.
    func headArrived(_ head: HopHead, on task: any CarriedHop) -> Bool {
        let fields = head.fields
        let kind = state.withLock { state in
            state.machine.visited(head.url, now: .now())
            return state.machine.head(status: head.status, location: RedirectChain.location(in: fields))
        }
        if run.options.contains(.handleCookies) {
            environment.config.cookieJar.store(setCookieHeaders: fields[values: .setCookie], from: head.url)
        }
        let url: URL
        switch kind {
        case .ignore:
            return true
        case .answer(let answered):
            url = answered
        case .redirect(let target, let method):
            let response = DownloadResponse(url: head.url, status: HTTPResponse.Status(code: head.status), headerFields: fields)
            let previous = state.withLock { $0.machine.request }
            switch run.builder.redirect(response, from: previous, to: target, method: method, first: run.request.url) {
            case .follow(let next):
                state.withLock { $0.machine.redirecting(to: next) }
                return true
            case .refused:
                return carriedOut(state.withLock { $0.machine.fail(ImageDownloader.requestRefused) }, on: task)
            case .stop:
                url = state.withLock { $0.machine.notRedirecting() }
            }
        }
        let verdict = environment.acceptance.verdict(
            status: head.status, fields: fields, url: url, modifier: run.context.responseModifier ?? environment.config.responseModifier)
        let action = state.withLock { $0.machine.accept(verdict, now: .now()) }
        switch verdict {
        case .accepted(let response), .refused(_, .some(let response)): run.transferReceived(response)
        case .refused: break
        }
        if case .progress = action, run.options.contains(.progressiveLoad) { startProgressiveDecoding() }
        return carriedOut(action, on: task)
    }

    func bodyArrived(_ buffer: ByteBuffer, on task: any CarriedHop) -> Bool {
        let action = state.withLock { $0.machine.bodyArrived(buffer, now: .now()) }
        if case .stopHop = action { return carriedOut(action, on: task) }
        perform(action)
        progressive.withLock { $0 }?.bytesArrived()
        return true
    }

    func hopEnded() {
        perform(state.withLock { $0.machine.hopEnded() })
    }

    func hopFailed(_ error: WebImageError, unanswered: Bool = false) {
        perform(state.withLock { $0.machine.hopFailed(error, unanswered: unanswered) })
    }

    /// Performs `action` for a carrier's report; `false` when it stopped the hop.
    private func carriedOut(_ action: DownloadRequestState.Action, on task: any CarriedHop) -> Bool {
        perform(action, on: task)
        if case .stopHop = action { return false }
        return true
    }

    // MARK: The time

    /// The clock's look at `now`: when this transfer wants the next one (nil: no more).
    func clockTicked(now: NIODeadline) -> NIODeadline? {
        switch state.withLock({ $0.machine.timerFired(now: now) }) {
        case .over: return nil
        case .recheck(let next): return next
        case .expired(let action):
            perform(action)
            return nil
        }
    }

    // MARK: Progressive decoding

    private func startProgressiveDecoding() {
        let run = self.run
        let url = run.url
        let decoding = ProgressiveDecoding(
            coder: LoaderDecoding.coder(for: run.context),
            options: LoaderDecoding.decodeOptions(for: url, options: run.options, context: run.context),
            bytes: { [weak self] from in self?.state.withLock { $0.machine.bytes(from: from) } ?? Data() },
            deliver: { [weak self] image in
                guard let (received, expected) = self?.state.withLock({ ($0.machine.received, $0.machine.expected) }) else { return }
                run.deliverProgress(ImageLoaderProgress(
                    receivedSize: received, expectedSize: expected, url: url, partialImage: image))
            })
        progressive.withLock { $0 = decoding }
    }

    private func metrics() -> DownloadMetrics {
        let now = NIODeadline.now()
        return state.withLock {
            $0.machine.metrics(url: run.url, startDate: startDate, queueDuration: queueDuration, startedAt: startedAt, now: now)
        }
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
