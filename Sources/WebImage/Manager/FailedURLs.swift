import Foundation
import Synchronization

/// URLs that failed in a way that will not fix itself (SD's `failedURLs`), keyed by absolute
/// string: hashing `URL` itself is several times slower on Linux and this is on every load's path.
final class FailedURLs: Sendable {
    private let urls = Mutex<Set<String>>([])

    func contains(_ url: URL) -> Bool {
        urls.withLock { $0.isEmpty ? false : $0.contains(url.absoluteString) }
    }

    func insert(_ url: URL) { _ = urls.withLock { $0.insert(url.absoluteString) } }
    func remove(_ url: URL) { _ = urls.withLock { $0.remove(url.absoluteString) } }
    func removeAll() { urls.withLock { $0.removeAll() } }
    var count: Int { urls.withLock { $0.count } }
}
