import Synchronization

/// The source hosts' name service as the server uses it: kept answers first (``DNSCache``), one
/// query for every caller asking for the same name at once, at most ``Limits/maxInFlight`` queries
/// running (later names wait their turn), and a deadline on every lookup — a name whose DNS never
/// answers fails with ``DNSFailure/timedOut`` when it passes and holds up no other name.
final class DNSResolver: Sendable {
    struct Limits: Sendable {
        /// The most a lookup may take, its wait for a query slot included.
        var deadline: Duration = .seconds(3)
        /// Distinct names asked of the name service at once.
        var maxInFlight = 64
        var cache = DNSCache.Limits()
    }

    typealias Outcome = Result<DNSAnswer, DNSFailure>

    private struct Query {
        let id: UInt64
        var waiters: [CheckedContinuation<Outcome, Never>]
        var started: Bool
        var timer: Task<Void, Never>?
    }

    private struct State {
        var cache: DNSCache
        var queries: [String: Query] = [:]
        /// Queries the name service is working on, those past their deadline included.
        var running = 0
        var waiting: [String] = []
        var nextID: UInt64 = 0
    }

    private enum Admission {
        case kept(Outcome)
        case joined
        case started(UInt64)
        case queued(UInt64)
    }

    let limits: Limits
    private let service: any NameService
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<State>

    /// `now` is the cache's clock (tests move it by hand); deadlines always run on the real one.
    init(service: any NameService, limits: Limits = Limits(), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.service = service
        self.limits = limits
        self.now = now
        state = Mutex(State(cache: DNSCache(limits: limits.cache)))
    }

    /// A caller's own lookup: deadline and in-flight bound, nothing kept (its answers have no TTL).
    convenience init(lookUp: @escaping SourceResolver.Lookup, limits: Limits = Limits()) {
        var limits = limits
        limits.cache.negativeTTL = .zero
        self.init(service: LookupNameService(lookUp: lookUp), limits: limits)
    }

    /// The process's resolver: c-ares with `resolv.conf`, `/etc/hosts` and `nsswitch.conf`; the
    /// system's getaddrinfo only if c-ares cannot start.
    static let system: DNSResolver = {
        if let cares = CAresNameService() { return DNSResolver(service: cares) }
        return DNSResolver(lookUp: SourceResolver.systemLookUp)
    }()

    /// Every address `host` resolves to.
    func addresses(for host: String) async throws(DNSFailure) -> [IPAddress] {
        let outcome: Outcome = await withCheckedContinuation { continuation in
            let admission = state.withLock { state -> Admission in
                if let kept = state.cache.outcome(for: host, now: now()) { return .kept(kept) }
                if state.queries[host] != nil {
                    state.queries[host]!.waiters.append(continuation)
                    return .joined
                }
                state.nextID += 1
                let id = state.nextID
                let starts = state.running < limits.maxInFlight
                state.queries[host] = Query(id: id, waiters: [continuation], started: starts)
                if starts {
                    state.running += 1
                    return .started(id)
                }
                state.waiting.append(host)
                return .queued(id)
            }
            switch admission {
            case .kept(let outcome):
                continuation.resume(returning: outcome)
            case .joined:
                break
            case .started(let id):
                armDeadline(host, id)
                begin(host, id)
            case .queued(let id):
                armDeadline(host, id)
            }
        }
        switch outcome {
        case .success(let answer): return answer.addresses
        case .failure(let failure): throw failure
        }
    }

    private func begin(_ host: String, _ id: UInt64) {
        service.lookUp(host) { [self] outcome in finish(host, id, outcome) }
    }

    private func armDeadline(_ host: String, _ id: UInt64) {
        let deadline = limits.deadline
        let timer = Task { [self] in
            guard (try? await Task.sleep(for: deadline)) != nil else { return }
            expire(host, id)
        }
        let current = state.withLock { state in
            guard state.queries[host]?.id == id else { return false }
            state.queries[host]!.timer = timer
            return true
        }
        if !current { timer.cancel() }
    }

    /// The name service answered (in time or not): keep the answer, answer the waiters, start the next.
    private func finish(_ host: String, _ id: UInt64, _ outcome: Outcome) {
        let (finished, next) = state.withLock { state -> (Query?, [(String, UInt64)]) in
            state.running -= 1
            state.cache.store(outcome, for: host, now: now())
            var finished: Query?
            if state.queries[host]?.id == id { finished = state.queries.removeValue(forKey: host) }
            var next: [(String, UInt64)] = []
            while state.running < limits.maxInFlight, !state.waiting.isEmpty {
                let name = state.waiting.removeFirst()
                guard let query = state.queries[name], !query.started else { continue }
                state.queries[name]!.started = true
                state.running += 1
                next.append((name, query.id))
            }
            return (finished, next)
        }
        finished?.timer?.cancel()
        for waiter in finished?.waiters ?? [] { waiter.resume(returning: outcome) }
        for (name, queryID) in next { begin(name, queryID) }
    }

    /// The deadline passed: the waiters get a timeout; a query already asked keeps its slot until
    /// the name service gives up on it (c-ares's own timeouts bound that).
    private func expire(_ host: String, _ id: UInt64) {
        let expired = state.withLock { state -> Query? in
            guard state.queries[host]?.id == id, let query = state.queries.removeValue(forKey: host) else { return nil }
            if !query.started, let index = state.waiting.firstIndex(of: host) { state.waiting.remove(at: index) }
            state.cache.store(.failure(.timedOut), for: host, now: now())
            return query
        }
        for waiter in expired?.waiters ?? [] { waiter.resume(returning: .failure(.timedOut)) }
    }
}
