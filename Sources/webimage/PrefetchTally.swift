import Foundation
import Synchronization
import WebImage

/// Counts of a running prefetch, updated from the prefetcher's observer, read by the progress
/// display. Bytes are what the disk cache grew by (entries and their metadata): read from its
/// running total when asked, rather than summed from the downloader's events, which would cost
/// the client several thread hops per image.
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
    private let disk: DiskCache
    private let initialDiskSize: Int

    init(total: Int, disk: DiskCache) {
        state = Mutex(Snapshot(total: total))
        self.disk = disk
        initialDiskSize = disk.totalSize
    }

    func record(_ url: URL, succeeded: Bool) {
        state.withLock { succeeded ? ($0.succeeded += 1) : $0.failed.append(url) }
    }

    var snapshot: Snapshot {
        var snapshot = state.withLock { $0 }
        snapshot.bytes = Int64(max(0, disk.totalSize - initialDiskSize))
        return snapshot
    }

    var elapsedSeconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
