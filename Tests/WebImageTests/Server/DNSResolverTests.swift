import Foundation
import Synchronization
import Testing
@testable import WebImageServer

/// A clock the specs move by hand: TTLs expire without waiting.
private final class ManualClock: Sendable {
    private let offset = Mutex(Duration.zero)
    private let base = ContinuousClock.now
    func now() -> ContinuousClock.Instant { base + offset.withLock { $0 } }
    func advance(by duration: Duration) { offset.withLock { $0 += duration } }
}

/// c-ares against a responder of the spec's own on 127.0.0.1: never the internet.
private func withCAres(
    _ rule: @escaping @Sendable (String) -> TestDNSResponder.Rule,
    _ body: (TestDNSResponder, CAresNameService) async throws -> Void
) async throws {
    let responder = try await TestDNSResponder.start(rule)
    // A loaded run (ThreadSanitizer) answers late: c-ares waits as long as the run is slow, and asks twice.
    let options = CAresNameService.Options(timeout: .seconds(TestTiming.seconds(2)), tries: 2, servers: responder.server, searchDomains: false)
    let cares = try #require(CAresNameService(options: options))
    do { try await body(responder, cares) } catch { Issue.record(error) }
    cares.shutdown()
    await responder.shutdown()
}

private let origin = IPAddress("198.51.100.7")!

private let rules: @Sendable (String) -> TestDNSResponder.Rule = { name in
    if name.hasPrefix("stall") { return .silent }
    if name.hasPrefix("missing") { return .notFound }
    if name.hasPrefix("short") { return .answer("198.51.100.7", ttl: 2) }
    if name.hasPrefix("long") { return .answer("198.51.100.7", ttl: 86_400) }
    return .answer("198.51.100.7", ttl: 60)
}

private func elapsed<T>(_ work: () async throws -> T) async rethrows -> (T, Duration) {
    let started = ContinuousClock.now
    let value = try await work()
    return (value, .now - started)
}

private func failureOf(_ work: () async throws(DNSFailure) -> Void) async -> DNSFailure? {
    do {
        try await work()
        return nil
    } catch {
        return error
    }
}

@Suite("Source DNS: deadline, in-flight bound, TTL cache")
struct DNSResolverTests {
    @Test("names whose DNS never answers time out within the deadline, and another name answers meanwhile")
    func neverAnswered() async throws {
        try await withCAres(rules) { responder, cares in
            var limits = DNSResolver.Limits()
            // Long enough that "answered meanwhile" and "timed out" stay apart on a loaded machine.
            let deadline = Duration.seconds(TestTiming.seconds(15))
            limits.deadline = deadline
            let resolver = DNSResolver(service: cares, limits: limits)
            let stalled = (0..<8).map { index in
                Task { await elapsed { await failureOf { () async throws(DNSFailure) in _ = try await resolver.addresses(for: "stall\(index).test") } } }
            }
            // c-ares may ask a stalled name twice (its own retry): the point is that all eight are in flight.
            #expect(await eventually(timeout: .seconds(TestTiming.seconds(20))) { (0..<8).allSatisfy { responder.queries("stall\($0).test") >= 1 } })
            let (good, took) = try await elapsed { try await resolver.addresses(for: "good.test") }
            #expect(good == [origin])
            #expect(took < deadline, "a good name waited \(took) behind stalled ones")
            for task in stalled {
                let (failure, waited) = await task.value
                #expect(failure == .timedOut)
                #expect(waited < deadline * 5, "timed out after \(waited)")
            }
        }
    }

    @Test("an injected lookup that blocks times out within the deadline and holds up no other name")
    func blockingLookup() async throws {
        let release = DispatchSemaphore(value: 0)
        var limits = DNSResolver.Limits()
        let deadline = Duration.seconds(TestTiming.seconds(2))
        limits.deadline = deadline
        let resolver = DNSResolver(lookUp: { host in
            // Released only once both answers are in (the wait's own limit is a safety net).
            if host == "slow.test" { _ = release.wait(timeout: .now() + 600) }
            return [origin]
        }, limits: limits)
        defer { release.signal() }
        let slow = Task { await failureOf { () async throws(DNSFailure) in _ = try await resolver.addresses(for: "slow.test") } }
        // Answered while the slow lookup is still blocked: not held up by it.
        #expect(try await resolver.addresses(for: "fast.test") == [origin])
        // The blocked lookup is given up at its deadline, not when its lookup returns.
        #expect(await slow.value == .timedOut)
    }

    @Test("a second lookup within the TTL is answered from the cache; callers at once share one query")
    func cacheHit() async throws {
        try await withCAres(rules) { responder, cares in
            let resolver = DNSResolver(service: cares)
            #expect(try await resolver.addresses(for: "good.test") == [origin])
            #expect(try await resolver.addresses(for: "good.test") == [origin])
            #expect(responder.queries("good.test") == 1)
            try await withThrowingTaskGroup(of: [IPAddress].self) { group in
                for _ in 0..<20 { group.addTask { try await resolver.addresses(for: "many.test") } }
                for try await addresses in group { #expect(addresses == [origin]) }
            }
            #expect(responder.queries("many.test") == 1)
        }
    }

    @Test("NXDOMAIN is kept for the negative TTL, then asked again")
    func negativeCache() async throws {
        try await withCAres(rules) { responder, cares in
            let clock = ManualClock()
            let resolver = DNSResolver(service: cares, now: clock.now)
            for _ in 0..<3 {
                await #expect(throws: DNSFailure.notFound) { try await resolver.addresses(for: "missing.test") }
            }
            #expect(responder.queries("missing.test") == 1)
            clock.advance(by: resolver.limits.cache.negativeTTL + .seconds(1))
            await #expect(throws: DNSFailure.notFound) { try await resolver.addresses(for: "missing.test") }
            #expect(responder.queries("missing.test") == 2)
        }
    }

    @Test("an answer is kept for its record's TTL, and no longer than the cap")
    func ttlExpiry() async throws {
        try await withCAres(rules) { responder, cares in
            let clock = ManualClock()
            let resolver = DNSResolver(service: cares, now: clock.now)
            _ = try await resolver.addresses(for: "short.test")
            clock.advance(by: .seconds(1))
            _ = try await resolver.addresses(for: "short.test")
            #expect(responder.queries("short.test") == 1, "within its 2 s TTL")
            clock.advance(by: .seconds(2))
            _ = try await resolver.addresses(for: "short.test")
            #expect(responder.queries("short.test") == 2, "past its TTL")

            _ = try await resolver.addresses(for: "long.test")
            clock.advance(by: resolver.limits.cache.maxTTL + .seconds(1))
            _ = try await resolver.addresses(for: "long.test")
            #expect(responder.queries("long.test") == 2, "a day's TTL is kept for the cap only")
        }
    }

    @Test("a timed-out name is kept as a failure too: the next request does not start another query at once")
    func timeoutIsKept() async throws {
        try await withCAres(rules) { responder, cares in
            var limits = DNSResolver.Limits()
            let deadline = Duration.seconds(TestTiming.seconds(5))
            limits.deadline = deadline
            // Kept far longer than this spec can be held up, so the second call always finds it.
            limits.cache.negativeTTL = .seconds(600)
            let resolver = DNSResolver(service: cares, limits: limits)
            await #expect(throws: DNSFailure.timedOut) { try await resolver.addresses(for: "stall.test") }
            // Answered from the negative cache: no new query, and no second wait for the deadline.
            let (_, took) = await elapsed { await #expect(throws: DNSFailure.timedOut) { try await resolver.addresses(for: "stall.test") } }
            // At most c-ares's own two tries of the first lookup: the second call asked nothing.
            #expect(took < deadline && responder.queries("stall.test") <= 2)
        }
    }

    @Test("at most maxInFlight names are asked at once; the rest wait their turn and still answer")
    func inFlightBound() async throws {
        let running = Mutex((now: 0, most: 0))
        var limits = DNSResolver.Limits()
        limits.maxInFlight = 2
        limits.deadline = .seconds(TestTiming.seconds(30))  // about the bound, not the deadline
        let resolver = DNSResolver(lookUp: { _ in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            Thread.sleep(forTimeInterval: 0.05)
            running.withLock { $0.now -= 1 }
            return [origin]
        }, limits: limits)
        try await withThrowingTaskGroup(of: [IPAddress].self) { group in
            for index in 0..<6 { group.addTask { try await resolver.addresses(for: "n\(index).test") } }
            for try await addresses in group { #expect(addresses == [origin]) }
        }
        #expect(running.withLock { $0.most } == 2)
    }

    @Test("the system configuration: /etc/hosts answers localhost; inet_aton's spellings mean what getaddrinfo says")
    func systemConfiguration() async throws {
        let cares = try #require(CAresNameService())
        defer { cares.shutdown() }
        let resolver = DNSResolver(service: cares)
        #expect(try await resolver.addresses(for: "localhost").contains(IPAddress("127.0.0.1")!))
        for spelling in ["127.1", "0x7f000001", "2130706433", "0177.0.0.1"] {
            #expect(try await resolver.addresses(for: spelling) == [IPAddress("127.0.0.1")!], "\(spelling)")
        }
    }
}
