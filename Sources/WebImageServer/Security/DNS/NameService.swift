/// Where a host's addresses come from: c-ares (``CAresNameService``) or a caller's own lookup
/// (``LookupNameService``). ``DNSResolver`` puts its cache, in-flight bound and deadline in front.
protocol NameService: Sendable {
    /// Starts a lookup of `host`; `answer` is called exactly once, on any thread.
    func lookUp(_ host: String, answer: @escaping @Sendable (Result<DNSAnswer, DNSFailure>) -> Void)
}

/// A name's addresses and how long they may be kept (zero: not at all).
struct DNSAnswer: Sendable, Hashable {
    var addresses: [IPAddress]
    var ttl: Duration
}

/// Why a name has no addresses.
enum DNSFailure: Error, Sendable, Hashable {
    /// NXDOMAIN, or no address records.
    case notFound
    /// No answer within the lookup's deadline.
    case timedOut
    /// Anything else the name service reported (refused, malformed answers).
    case failed(String)
}
