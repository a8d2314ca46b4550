import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import WebImage

/// One ``ImageDownloader`` per checked (host, address) pair, each on an `HTTPClient` whose
/// `dnsOverride` sends that host to that address only — TLS still verifies the host's name — and
/// which never follows a redirect on its own (``SourceLoader`` checks each hop first). The host is
/// resolved and checked again for every request; a pair is kept while it is used so keep-alive
/// connections are reused. Only a client carrying no download is shut down (shutting a client
/// down cancels what it runs): after `idleLifetime` unused, or as the least recently used idle one
/// when `capacity` is reached — past it while every client is busy, which the server's work slots bound.
final class PinnedClients: Sendable {
    private struct Entry {
        let downloader: ImageDownloader
        let client: HTTPClient
        var lastUsed: ContinuousClock.Instant
        var downloads = 0
        var isIdle: Bool { downloads == 0 }
    }

    private let config: DownloaderConfig
    private let idleLifetime: Duration
    private let capacity: Int
    /// nil once shut down: a late load then gets no new client (none would ever be shut down).
    private let entries = Mutex<[String: Entry]?>([:])

    init(config: DownloaderConfig, idleLifetime: Duration = .seconds(120), capacity: Int = 64) {
        self.config = config
        self.idleLifetime = idleLifetime
        self.capacity = capacity
    }

    /// Runs `body` with the downloader that connects `target.host` to `target.address` and
    /// nowhere else; its client is not shut down before `body` returns.
    func withDownloader<T>(
        for target: SourceResolver.Target, _ body: (ImageDownloader) async throws(WebImageError) -> T
    ) async throws(WebImageError) -> T {
        let key = "\(target.host)|\(target.address)"
        guard let downloader = checkOut(key, target: target) else { throw .cancelled }
        defer { checkIn(key) }
        return try await body(downloader)
    }

    /// Clients open now (for specs and metrics).
    var count: Int { entries.withLock { $0?.count ?? 0 } }

    private func checkOut(_ key: String, target: SourceResolver.Target) -> ImageDownloader? {
        let now = ContinuousClock.now
        let (downloader, retired) = entries.withLock { entries -> (ImageDownloader?, [Entry]) in
            guard entries != nil else { return (nil, []) }
            var retired: [Entry] = []
            for (name, entry) in entries! where entry.isIdle && now - entry.lastUsed > idleLifetime {
                retired.append(entry)
                entries![name] = nil
            }
            if var entry = entries![key] {
                entry.lastUsed = now
                entry.downloads += 1
                entries![key] = entry
                return (entry.downloader, retired)
            }
            if entries!.count >= capacity,
               let oldest = entries!.filter({ $0.value.isIdle }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                retired.append(oldest.value)
                entries![oldest.key] = nil
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration(for: target))
            let entry = Entry(downloader: ImageDownloader(config: config, client: client), client: client, lastUsed: now, downloads: 1)
            entries![key] = entry
            return (entry.downloader, retired)
        }
        Self.retire(retired)
        return downloader
    }

    private func checkIn(_ key: String) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            entries?[key]?.downloads -= 1
            entries?[key]?.lastUsed = now
        }
    }

    /// Shuts every client down (the server's drain); later loads fail as cancelled.
    func shutdown() async {
        let all = entries.withLock { entries in
            defer { entries = nil }
            return entries.map { Array($0.values) } ?? []
        }
        for entry in all { try? await entry.client.shutdown() }
    }

    /// Dropped without ``shutdown()``: the clients still open close on their own (the callback form
    /// keeps each alive until done).
    deinit {
        for entry in entries.withLock({ $0.map { Array($0.values) } ?? [] }) { entry.client.shutdown { _ in } }
    }

    private func clientConfiguration(for target: SourceResolver.Target) -> HTTPClient.Configuration {
        // The downloader's own (connect timeout, trust roots, a failed connect or handshake not
        // retried — a 502 at once rather than a work slot held until the connect timeout), pinned.
        var configuration = ImageDownloader.clientConfiguration(config)
        configuration.dnsOverride = [target.host: target.address.description]
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return configuration
    }

    /// A retired client is idle; its shutdown runs off the caller's path.
    private static func retire(_ entries: [Entry]) {
        guard !entries.isEmpty else { return }
        Task { for entry in entries { try? await entry.client.shutdown() } }
    }
}
