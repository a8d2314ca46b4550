import WebImage

/// A caller's own ``SourceResolver/Lookup`` (tests' fakes, `SourceResolver.systemLookUp`) as a
/// ``NameService``: it may block, so it runs on threads of its own; its answers carry no TTL, so
/// they are never cached.
struct LookupNameService: NameService {
    let lookUp: SourceResolver.Lookup

    /// Blocking lookups run here, never on Swift concurrency's or GCD's threads.
    private static let threads = ImageWorkQueue(label: "WebImageServer.resolve", maxConcurrentCount: 4)

    func lookUp(_ host: String, answer: @escaping @Sendable (Result<DNSAnswer, DNSFailure>) -> Void) {
        let lookUp = self.lookUp
        Task {
            let addresses = await Self.threads.run { lookUp(host) }
            answer(addresses.isEmpty ? .failure(.notFound) : .success(DNSAnswer(addresses: addresses, ttl: .zero)))
        }
    }
}
