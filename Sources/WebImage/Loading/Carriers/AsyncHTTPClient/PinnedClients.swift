import AsyncHTTPClient
import NIOCore
import Synchronization

/// The AsyncHTTPClient carrier's own clients, one per pinned (host, address) pair: each one's
/// `dnsOverride` sends that host to that address only, TLS still checking the host's name. A
/// client is kept while hops use it, so its connections are reused, and shut down once it has
/// been unused for the idle lifetime or, past the capacity, when it is the least recently used.
final class PinnedClients: Sendable {
    /// A client lent to one hop; released when the hop ends.
    struct Lease: Sendable {
        let client: HTTPClient
        fileprivate let key: String
        fileprivate let owner: PinnedClients

        func release() { owner.release(key) }
    }

    private struct Entry {
        let client: HTTPClient
        var inUse = 0
        var lastUsed = ContinuousClock.now
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var isShutDown = false
    }

    private let configuration: HTTPClient.Configuration
    private let idleLifetime: Duration
    private let capacity: Int
    private let state = Mutex(State())

    init(configuration: HTTPClient.Configuration, idleLifetime: TimeAmount, capacity: Int = 64) {
        self.configuration = configuration
        self.idleLifetime = .nanoseconds(idleLifetime.nanoseconds)
        self.capacity = capacity
    }

    /// The client that sends `host` to `address` (both nil: an own client that resolves as usual).
    func lease(host: String?, address: String?) -> Lease {
        let key = host.map { "\($0)|\(address ?? "")" } ?? ""
        let now = ContinuousClock.now
        let (client, retired) = state.withLock { state -> (HTTPClient, [HTTPClient]) in
            var retired: [HTTPClient] = []
            for (name, entry) in state.entries where entry.inUse == 0 && now - entry.lastUsed > idleLifetime {
                retired.append(entry.client)
                state.entries[name] = nil
            }
            if state.entries[key] == nil {
                if state.entries.count >= capacity,
                   let oldest = state.entries.filter({ $0.value.inUse == 0 }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                    retired.append(oldest.value.client)
                    state.entries[oldest.key] = nil
                }
                var configuration = configuration
                if let host, let address { configuration.dnsOverride = [host: address] }
                state.entries[key] = Entry(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
            }
            state.entries[key]!.inUse += 1
            state.entries[key]!.lastUsed = now
            return (state.entries[key]!.client, retired)
        }
        Self.retire(retired)
        return Lease(client: client, key: key, owner: self)
    }

    private func release(_ key: String) {
        let retired = state.withLock { state -> HTTPClient? in
            guard var entry = state.entries[key] else { return nil }
            entry.inUse -= 1
            entry.lastUsed = .now
            // Shut down meanwhile: the last hop lets the client go.
            guard !state.isShutDown || entry.inUse > 0 else {
                state.entries[key] = nil
                return entry.client
            }
            state.entries[key] = entry
            return nil
        }
        retired.map { Self.retire([$0]) }
    }

    /// Shuts down the clients no hop uses, and the rest when their last hop ends.
    func shutdown() {
        let idle = state.withLock { state in
            state.isShutDown = true
            let idle = state.entries.filter { $0.value.inUse == 0 }
            idle.keys.forEach { state.entries[$0] = nil }
            return idle.values.map(\.client)
        }
        Self.retire(idle)
    }

    private static func retire(_ clients: [HTTPClient]) {
        for client in clients { client.shutdown { _ in } }
    }
}
