/// Answers kept for their TTL (capped), and failures kept briefly: a second lookup of a name within
/// its TTL asks no one, and a name that does not resolve (or never answers) is not asked again at
/// every request. Bounded by entries; the soonest to expire go first.
struct DNSCache {
    struct Limits: Sendable {
        /// Entries kept at most.
        var capacity = 1024
        /// The longest a positive answer is kept, whatever its TTL says.
        var maxTTL: Duration = .seconds(300)
        /// How long NXDOMAIN, no-data and timeouts are kept (`ares_getaddrinfo` gives no SOA TTL);
        /// zero = not at all.
        var negativeTTL: Duration = .seconds(5)
    }

    private struct Entry {
        var outcome: Result<DNSAnswer, DNSFailure>
        var expires: ContinuousClock.Instant
    }

    let limits: Limits
    private var entries: [String: Entry] = [:]

    init(limits: Limits) {
        self.limits = limits
    }

    var count: Int { entries.count }

    /// The kept outcome for `host`, unless it has expired by `now`.
    mutating func outcome(for host: String, now: ContinuousClock.Instant) -> Result<DNSAnswer, DNSFailure>? {
        guard let entry = entries[host] else { return nil }
        guard entry.expires > now else {
            entries[host] = nil
            return nil
        }
        return entry.outcome
    }

    mutating func store(_ outcome: Result<DNSAnswer, DNSFailure>, for host: String, now: ContinuousClock.Instant) {
        let lifetime: Duration
        switch outcome {
        case .success(let answer): lifetime = min(answer.ttl, limits.maxTTL)
        case .failure: lifetime = limits.negativeTTL
        }
        guard lifetime > .zero, limits.capacity > 0 else { return }
        if entries[host] == nil, entries.count >= limits.capacity {
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= limits.capacity, let soonest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[soonest.key] = nil
            }
        }
        entries[host] = Entry(outcome: outcome, expires: now + lifetime)
    }
}
