import Foundation
import Synchronization

/// Counts of a running prefetch, updated from the prefetcher's observer and the downloader's
/// events, read by the progress display.
final class PrefetchTally: Sendable {
    struct Snapshot {
        var total: Int
        var succeeded = 0
        var failed: [URL] = []
        var bytes: Int64 = 0
        var done: Int { succeeded + failed.count }
    }

    let start = ContinuousClock.now
    private let state: Mutex<Snapshot>

    init(total: Int) { state = Mutex(Snapshot(total: total)) }

    func record(_ url: URL, succeeded: Bool) {
        state.withLock { succeeded ? ($0.succeeded += 1) : $0.failed.append(url) }
    }

    func addBytes(_ bytes: Int64) {
        state.withLock { $0.bytes += bytes }
    }

    var snapshot: Snapshot { state.withLock { $0 } }

    var elapsedSeconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
