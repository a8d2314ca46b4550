import Foundation
import HTTPTypes
import NIOCore
import Testing
@testable import WebImage

/// What one download decides, event by event, with no network and no clock: the value every
/// carrier's transfer runs (the carriers' own specs run the same rules over real HTTP).
@Suite("DownloadRequestState: a download's decisions as a value that takes events and returns actions")
struct DownloadRequestStateTests {
    private let start = URL(string: "https://a.example/moved.png")!
    private let target = URL(string: "https://b.example/a.png")!
    private let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    private func machine(_ change: (inout DownloaderConfig) -> Void = { _ in }, timeout: TimeInterval = 15) -> DownloadRequestState {
        var config = DownloaderConfig()
        config.maximumResponseSize = 10
        change(&config)
        let request = DownloadRequest(url: start, headerFields: [.authorization: "Bearer x"], timeout: timeout)
        return DownloadRequestState(request: request, limits: .init(config), spills: false, now: t0)
    }

    private func response(_ status: Int, _ fields: HTTPFields = [.contentType: "image/png"], url: URL? = nil) -> ResponseAcceptance.Verdict {
        var config = DownloaderConfig()
        config.maximumResponseSize = 10
        return ResponseAcceptance(config).verdict(status: status, fields: fields, url: url ?? target, modifier: nil)
    }

    @Test("a redirect, then the answer: the redirect's body counted but not kept, the next hop to the request built for it, the answer's body handed over")
    func redirectThenAnswer() throws {
        var state = machine()
        state.carryHop()
        state.visited(start, now: t0)
        state.redirected(301, to: target.absoluteString)
        guard case .none = state.bodyArrived(ByteBuffer(string: "moved"), now: t0) else { Issue.record("a redirect's body reported"); return }
        guard case .send(let next) = state.hopEnded() else { Issue.record("no next hop"); return }
        #expect(next.url == target)
        let allowed = try state.allowed(next).get()
        #expect(allowed.url == target)
        #expect(state.carried(hop: state.hops) == .inFlight)
        state.visited(target, now: t0)
        guard case .answer(let url) = state.head(status: 200, location: nil) else { Issue.record("not the answer"); return }
        #expect(url == target)
        guard case .progress(0, -1) = state.accept(response(200), now: t0) else { Issue.record("no progress from zero"); return }
        guard case .progress(5, -1) = state.bodyArrived(ByteBuffer(string: "hello"), now: t0) else { Issue.record("no progress"); return }
        guard case .finish(.success(let output)) = state.hopEnded() else { Issue.record("no answer"); return }
        #expect(output.data == Data("hello".utf8) && output.response.statusCode == 200)
        #expect(state.metrics(url: start, startDate: Date(), queueDuration: .zero, startedAt: t0, now: t0).redirectCount == 1)
    }

    @Test("a body over the limit stops the hop, and that reason — not the carrier's error that follows — ends the download, once")
    func bodyBudget() {
        var state = machine()
        state.carryHop()
        _ = state.head(status: 200, location: nil)
        _ = state.accept(response(200), now: t0)
        guard case .stopHop(let error) = state.bodyArrived(ByteBuffer(string: "more than ten"), now: t0) else {
            Issue.record("not stopped"); return
        }
        #expect(error == .transport(.responseTooLarge(limit: 10)))
        guard case .finish(.failure(let ended)) = state.hopFailed(WebImageError.transport(.connectionLost(reason: "closed"))) else { Issue.record("no end"); return }
        #expect(ended == error)
        guard case .none = state.hopFailed(WebImageError.transport(.connectionLost(reason: "eof"))), case .none = state.cancel() else { Issue.record("ended twice"); return }
    }

    @Test("a stopped hop ends with its stop reason even when its carrier then reports the response complete")
    func stopWinsOverEnd() {
        var state = machine()
        state.carryHop()
        guard case .stopHop(.cancelled) = state.cancel() else { Issue.record("not stopped"); return }
        guard case .none = state.bodyArrived(ByteBuffer(string: "late"), now: t0) else { Issue.record("a stopped hop's body was taken"); return }
        guard case .finish(.failure(.cancelled)) = state.hopEnded() else { Issue.record("the late end won"); return }
    }

    @Test("a carrier quicker than its sender: a hop whose events all came before carried() is over, and the next hop is the one in flight")
    func carrierQuickerThanSender() throws {
        var state = machine()
        _ = state.allowed(state.request)
        let first = state.hops
        state.visited(start, now: t0)
        state.redirected(302, to: target.absoluteString)
        guard case .send(let next) = state.hopEnded() else { Issue.record("no next hop"); return }
        #expect(state.carried(hop: first) == .over, "the first hop's late carried() touches nothing")
        _ = try state.allowed(next).get()
        #expect(state.carried(hop: first) == .over && state.carried(hop: state.hops) == .inFlight)
    }

    @Test("a redirect turned down (by the redirect handler) is the answer: its head is checked, and a 302 refused")
    func redirectTurnedDown() {
        var state = machine()
        state.carryHop()
        state.visited(start, now: t0)
        guard case .redirect = state.head(status: 302, location: target.absoluteString) else { Issue.record("not a redirect"); return }
        #expect(state.notRedirecting() == start)
        guard case .stopHop(.invalidDownloadStatusCode(302)) = state.accept(response(302, url: start), now: t0) else {
            Issue.record("the redirect's head was not the answer"); return
        }
    }

    @Test("a redirect's body has the same limit")
    func redirectBodyBudget() {
        var state = machine()
        state.carryHop()
        _ = state.head(status: 302, location: "/elsewhere.png")
        guard case .stopHop(.transport(.responseTooLarge)) = state.bodyArrived(ByteBuffer(string: "more than ten"), now: t0) else {
            Issue.record("not stopped"); return
        }
    }

    @Test("a refused head is seen by the callers and stops the hop with its error")
    func refusedHead() {
        var state = machine()
        state.carryHop()
        _ = state.head(status: 404, location: nil)
        guard case .stopHop(.invalidDownloadStatusCode(404)) = state.accept(response(404), now: t0) else { Issue.record("not refused"); return }
        #expect(state.response?.statusCode == 404)
        guard case .finish(.failure(.invalidDownloadStatusCode(404))) = state.hopFailed(WebImageError.transport(.connectionLost(reason: "eof"))) else { Issue.record("no end"); return }
    }

    @Test("redirects past the limit end the download with a redirect error")
    func redirectLimit() {
        var state = machine { $0.maximumRedirects = 1 }
        state.carryHop()
        for hop in 0..<2 {
            _ = state.carried(hop: state.hops)
            state.redirected(302, to: "/hop\(hop).png")
            let action = state.hopEnded()
            if hop == 0 {
                guard case .send(let next) = action, (try? state.allowed(next).get()) != nil else { Issue.record("first redirect not followed"); return }
            } else {
                guard case .finish(.failure(let error)) = action else { Issue.record("second redirect followed"); return }
                #expect(error == .transport(.tooManyRedirects(limit: 1)))
            }
        }
    }

    @Test("cancel: with a hop in flight it stops the hop; between hops (the policy deciding) it ends at once, and the hop allowed after is not carried")
    func cancel() {
        var inFlight = machine()
        inFlight.carryHop()
        guard case .stopHop(.cancelled) = inFlight.cancel() else { Issue.record("hop not stopped"); return }

        var between = machine()
        guard case .finish(.failure(.cancelled)) = between.cancel() else { Issue.record("not ended"); return }
        guard case .failure(.cancelled) = between.allowed(between.request) else { Issue.record("carried after the end"); return }
        #expect(between.carried(hop: 1) == .stop, "a carrier that started anyway is stopped at once")
    }

    @Test("the timer: a look before the idle timeout is told when to look again; after it, the hop stops (or, between hops, the download ends) with a read timeout")
    func idle() {
        var state = machine(timeout: 2)
        guard case .recheck(let next) = state.timerFired(now: t0 + .milliseconds(500)) else { Issue.record("expired early"); return }
        #expect(next == t0 + .seconds(2))
        state.visited(start, now: t0 + .seconds(1))  // activity moves the mark
        #expect(state.nextCheck == t0 + .seconds(3))
        guard case .expired(.finish(.failure(.transport(.timedOut(.read))))) = state.timerFired(now: t0 + .seconds(3)) else {
            Issue.record("not timed out between hops"); return
        }
        guard case .over = state.timerFired(now: t0 + .seconds(9)) else { Issue.record("looks after the end"); return }

        var carrying = machine(timeout: 2)
        carrying.carryHop()
        guard case .expired(.stopHop(.transport(.timedOut(.read)))) = carrying.timerFired(now: t0 + .seconds(2)) else {
            Issue.record("hop not stopped"); return
        }
        var unlimited = machine(timeout: .infinity)
        guard case .over = unlimited.timerFired(now: t0 + .seconds(3_600)) else { Issue.record("no limit expired"); return }
    }

    @Test("the resource deadline holds however busy the hop is, and wins over a later idle limit")
    func resourceDeadline() {
        var state = machine({ $0.resourceTimeout = 5 }, timeout: 4)
        state.carryHop()
        for second in 1...4 { state.visited(start, now: t0 + .seconds(Int64(second))) }
        #expect(state.nextCheck == t0 + .seconds(5), "the deadline comes before the idle limit (8 s)")
        guard case .expired(.stopHop(.transport(.timedOut(.resource)))) = state.timerFired(now: t0 + .seconds(5)) else {
            Issue.record("deadline passed unnoticed"); return
        }
    }

    @Test("progress is paced by minimumProgressInterval: reported when it moved that far, and always the last chunk")
    func progressPacing() {
        var state = machine {
            $0.minimumProgressInterval = 0.5
            $0.maximumResponseSize = 100
        }
        state.carryHop()
        _ = state.head(status: 200, location: nil)
        _ = state.accept(ResponseAcceptance(DownloaderConfig()).verdict(
            status: 200, fields: [.contentType: "image/png", .contentLength: "10"], url: target, modifier: nil), now: t0)
        var reported: [Int64] = []
        for _ in 0..<10 {
            if case .progress(let received, 10) = state.bodyArrived(ByteBuffer(string: "x"), now: t0) { reported.append(received) }
        }
        #expect(reported == [1, 6, 10])
    }

    @Test("a hop a kept-alive connection dropped unanswered goes once more, to the same request; a second drop, or any other failure, ends the download")
    func unansweredHopResentOnce() {
        let reset = WebImageError.transport(.connectionLost(reason: "eof"))
        var state = machine()
        state.carryHop()
        guard case .resend(let again) = state.hopFailed(reset, unanswered: true) else { Issue.record("not resent"); return }
        #expect(again.url == start && again.headerFields[.authorization] == "Bearer x")
        _ = state.allowed(again)
        _ = state.carried(hop: state.hops)
        guard case .finish(.failure) = state.hopFailed(reset, unanswered: true) else { Issue.record("resent twice"); return }

        var answered = machine()
        answered.carryHop()
        guard case .finish(.failure) = answered.hopFailed(reset) else { Issue.record("a failure that is not a dropped request was resent"); return }

        var cancelled = machine()
        cancelled.carryHop()
        _ = cancelled.cancel()
        guard case .finish(.failure(.cancelled)) = cancelled.hopFailed(reset, unanswered: true) else {
            Issue.record("a cancelled download was resent"); return
        }
    }

    @Test("each hop of a redirect chain may go once more after an unanswered drop")
    func resendPerHop() throws {
        var state = machine()
        state.carryHop()
        guard case .resend(let again) = state.hopFailed(WebImageError.transport(.connectionLost(reason: "eof")), unanswered: true) else { Issue.record("not resent"); return }
        _ = state.allowed(again)
        _ = state.carried(hop: state.hops)
        state.visited(start, now: t0)
        state.redirected(302, to: target.absoluteString)
        guard case .send(let next) = state.hopEnded() else { Issue.record("no next hop"); return }
        _ = try state.allowed(next).get()
        _ = state.carried(hop: state.hops)
        guard case .resend(let nextAgain) = state.hopFailed(WebImageError.transport(.connectionLost(reason: "eof")), unanswered: true) else {
            Issue.record("the next hop was not resent"); return
        }
        #expect(nextAgain.url == target)
    }
}

extension DownloadRequestState {
    /// The transfer's part of a redirect: the head, then the next hop's request (as the builder
    /// would make it; bare here, the builder has its own specs).
    mutating func redirected(_ status: Int, to location: String) {
        guard case .redirect(let target, let method) = head(status: status, location: location) else {
            Issue.record("not a redirect")
            return
        }
        redirecting(to: DownloadRequest(url: target, method: method, timeout: 15))
    }

    /// What the transfer does before a hop's first event: the hop policy allowed it, a carrier took it.
    mutating func carryHop() {
        _ = allowed(request)
        #expect(carried(hop: hops) == .inFlight)
    }
}
