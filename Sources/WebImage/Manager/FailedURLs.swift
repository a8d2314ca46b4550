import Foundation
import Synchronization

/// URLs that failed in a way that will not fix itself (SD's `failedURLs`), keyed by absolute
/// string: hashing `URL` itself is several times slower on Linux and this is on every load's path.
final class FailedURLs: Sendable {
    private let urls = Mutex<Set<String>>([])
    /// Mirrors `urls.count` so the usual case — nothing blocked — costs one atomic load, not a lock.
    private let size = Atomic<Int>(0)

    func contains(_ url: URL) -> Bool {
        guard size.load(ordering: .acquiring) > 0 else { return false }
        return urls.withLock { $0.contains(url.absoluteString) }
    }

    func insert(_ url: URL) { update { _ = $0.insert(url.absoluteString) } }
    func remove(_ url: URL) { update { _ = $0.remove(url.absoluteString) } }
    func removeAll() { update { $0.removeAll() } }
    var count: Int { urls.withLock { $0.count } }

    private func update(_ change: (inout Set<String>) -> Void) {
        urls.withLock { urls in
            change(&urls)
            size.store(urls.count, ordering: .releasing)
        }
    }
}
