import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import Synchronization

/// Runs one download for a `DownloadOperation`: carries out what its ``DownloadRequestState``
/// decides. Before each hop it asks the hop policy, then sends the hop on a carrier
/// (AsyncHTTPClient, or ``HTTP1Transport``; either calls back on an event loop, one hop each) and
/// hands the machine every head, body part, end and failure; it runs the response checks (the
/// response modifier is app code, so outside the lock), progress, cookies and progressive
/// decoding, and shows the machine the time (``TransferClock``). Nothing here decodes a full image.
final class DownloadTransfer: HTTPClientResponseDelegate {
    typealias Response = Void

    private struct State {
        var machine: DownloadRequestState
        /// The carrier's task for the hop in flight.
        var task: (any TransferTask)?
        /// Where the hop policy pinned the hop in flight, for a resend to go to the same address.
        var address: String?
        /// The clock that shows the machine the time, from the first hop on.
        var clock: TransferClock?
    }

    private let operation: DownloadOperation
    private let startedAt = NIODeadline.now()
    private let startDate = Date()
    private let queueDuration: Duration
    private let state: Mutex<State>
    private let progressive = Mutex<ProgressiveDecoding?>(nil)
    /// Where this transfer sits in its clock's list; only the clock reads and writes it, under its lock.
    let clockSlot = Atomic<Int>(-1)

    init(operation: DownloadOperation, queueDuration: Duration) {
        self.operation = operation
        environment = operation.environment
        self.queueDuration = queueDuration
        // Built in place: a machine made first and then stored was copied (a retain and release of each part).
        state = Mutex(State(machine: DownloadRequestState(
            request: operation.request, limits: operation.environment.limits, spills: !operation.options.contains(.progressiveLoad),
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
                failed(error)
            }
        }
    }

    private func carry(_ request: DownloadRequest, address: String?) {
        let allowed = state.withLock { state in
            state.address = address
            return state.machine.allowed(request)
        }
        if case .failure(let error) = allowed { return failed(error) }
        switch operation.carry(request, address: address, transfer: self) {
        case .failure(let error): failed(error)
        case .success(let task):
            let (stopNow, watch) = state.withLock { state -> (Bool, NIODeadline?) in
                let stopNow = state.machine.carried()
                if !stopNow { state.task = task }
                guard !stopNow, state.clock == nil, let next = state.machine.nextCheck else { return (stopNow, nil) }
                state.clock = environment.clocks.clock(for: task.eventLoop)
                return (false, next)
            }
            if stopNow { return task.cancel() }
            if let watch { state.withLock { $0.clock }?.join(self, at: watch) }
        }
    }

    /// Does what the machine decided (on `task` when a hop is to be stopped, else the one in flight).
    private func perform(_ action: DownloadRequestState.Action, on task: (any TransferTask)? = nil) {
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
            (task ?? state.withLock { $0.task })?.fail(reason: error)
        case .progress(let received, let expected):
            operation.deliverProgress(ImageLoaderProgress(receivedSize: received, expectedSize: expected, url: operation.url))
        case .finish(let outcome):
            let clock = state.withLock { state in
                defer { state.task = nil }
                return state.clock
            }
            clock?.leave(self)
            progressive.withLock { $0 }?.finish()
            operation.transferEnded(outcome, metrics: metrics())
        }
    }

    // MARK: HTTPClientResponseDelegate

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
        task.futureResult.whenFailure { [self] error in failed(error) }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        failed(error)
    }

    // MARK: From any carrier

    /// A response head with `setCookies` (its `Set-Cookie` values) arrived for `url` (each hop of
    /// a redirect chain, the last one included).
    func visited(_ url: URL, setCookies: @autoclosure () -> [String]) {
        state.withLock { $0.machine.visited(url, now: .now()) }
        if operation.options.contains(.handleCookies) {
            environment.config.cookieJar.store(setCookieHeaders: setCookies(), from: url)
        }
    }

    /// A hop's head (`status` and `fields`): a redirect to follow, or the answer; a failed future stops the request.
    func headArrived(status: Int, fields: HTTPFields, task: any TransferTask) -> EventLoopFuture<Void> {
        guard case .answer(let url) = state.withLock({ $0.machine.head(status: status, location: fields[.location]) }) else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let verdict = environment.acceptance.verdict(
            status: status, fields: fields, url: url, modifier: operation.context.responseModifier ?? environment.config.responseModifier)
        let action = state.withLock { $0.machine.accept(verdict, now: .now()) }
        switch verdict {
        case .accepted(let response), .refused(_, .some(let response)): operation.transferReceived(response)
        case .refused: break
        }
        if case .progress = action, operation.options.contains(.progressiveLoad) { startProgressiveDecoding() }
        return carriedOut(action, on: task)
    }

    func bodyArrived(_ buffer: ByteBuffer, task: any TransferTask) -> EventLoopFuture<Void> {
        let action = state.withLock { $0.machine.bodyArrived(buffer, now: .now()) }
        if case .stopHop = action { return carriedOut(action, on: task) }
        perform(action)
        progressive.withLock { $0 }?.bytesArrived()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func finished() {
        perform(state.withLock { $0.machine.hopEnded() })
    }

    /// The carrier failed the hop; `unanswered`: on a kept-alive connection that closed before any response.
    func failed(_ error: any Error, unanswered: Bool = false) {
        perform(state.withLock { $0.machine.hopFailed(error, unanswered: unanswered) })
    }

    /// Performs `action` for a carrier's callback; a stop fails its future too, which stops the request.
    private func carriedOut(_ action: DownloadRequestState.Action, on task: any TransferTask) -> EventLoopFuture<Void> {
        perform(action, on: task)
        if case .stopHop(let error) = action { return task.eventLoop.makeFailedFuture(error) }
        return task.eventLoop.makeSucceededVoidFuture()
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
        let operation = self.operation
        let url = operation.url
        let decoding = ProgressiveDecoding(
            coder: LoaderDecoding.coder(for: operation.context),
            options: LoaderDecoding.decodeOptions(for: url, options: operation.options, context: operation.context),
            bytes: { [weak self] from in self?.state.withLock { $0.machine.bytes(from: from) } ?? Data() },
            deliver: { [weak self] image in
                guard let (received, expected) = self?.state.withLock({ ($0.machine.received, $0.machine.expected) }) else { return }
                operation.deliverProgress(ImageLoaderProgress(
                    receivedSize: received, expectedSize: expected, url: url, partialImage: image))
            })
        progressive.withLock { $0 = decoding }
    }

    private func metrics() -> DownloadMetrics {
        let now = NIODeadline.now()
        return state.withLock {
            $0.machine.metrics(url: operation.url, startDate: startDate, queueDuration: queueDuration, startedAt: startedAt, now: now)
        }
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
