import Foundation
import Synchronization

/// A FIFO queue that runs at most ``maxConcurrentCount`` CPU-heavy image jobs at once (Nuke's
/// decoding and processing queues). Without it every finished download decoded on a thread of
/// its own, each holding full-size bitmaps: 64 downloads of a 17.9 MP photo peaked at 13.6 GB.
///
/// Jobs run on GCD threads, never on Swift's cooperative pool, which a long decode would starve.
/// ``decoding`` takes every full decode (downloads, local files, disk-cache hits); ``processing``
/// takes transforms and the encodes that precede a disk write. Each defaults to one job per core:
/// more only adds memory, since each job is CPU-bound.
public final class ImageWorkQueue: Sendable {
    /// Full decodes: downloads, local files, disk-cache hits.
    public static let decoding = ImageWorkQueue(label: "WebImage.decoding")
    /// Transforms, and encodes before a disk write.
    public static let processing = ImageWorkQueue(label: "WebImage.processing")

    private struct State {
        var maxConcurrentCount: Int
        var running = 0
        /// Waiting jobs, oldest at `head` (a ring of indices would be no faster for these sizes).
        var waiting: [@Sendable () -> Void] = []
        var head = 0

        mutating func takeNext() -> (@Sendable () -> Void)? {
            guard running < maxConcurrentCount, head < waiting.count else { return nil }
            let job = waiting[head]
            head += 1
            if head > 64, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            running += 1
            return job
        }
    }

    private let dispatch: DispatchQueue
    private let state: Mutex<State>

    /// A queue running at most `maxConcurrentCount` jobs at once (default: one per core).
    public init(label: String, maxConcurrentCount: Int = ImageWorkQueue.defaultWidth) {
        dispatch = DispatchQueue(label: label, qos: .utility, attributes: .concurrent)
        state = Mutex(State(maxConcurrentCount: max(1, maxConcurrentCount)))
    }

    /// Jobs at once. Raising it starts waiting jobs now; lowering it lets running ones finish.
    public var maxConcurrentCount: Int {
        get { state.withLock { $0.maxConcurrentCount } }
        set {
            let started = state.withLock { state -> [@Sendable () -> Void] in
                state.maxConcurrentCount = max(1, newValue)
                return Self.startable(&state)
            }
            started.forEach(launch)
        }
    }

    /// Jobs running now and jobs waiting for a slot.
    public var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count - $0.head) } }

    /// One job per active core.
    public static var defaultWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Queues `job`; it runs when a slot is free, in the order jobs were queued.
    public func async(_ job: @escaping @Sendable () -> Void) {
        let started = state.withLock { state -> [@Sendable () -> Void] in
            state.waiting.append(job)
            return Self.startable(&state)
        }
        started.forEach(launch)
    }

    /// Runs `job` in its turn and returns its result.
    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            self.async { continuation.resume(returning: job()) }
        }
    }

    private static func startable(_ state: inout State) -> [@Sendable () -> Void] {
        var jobs: [@Sendable () -> Void] = []
        while let job = state.takeNext() { jobs.append(job) }
        return jobs
    }

    private func launch(_ job: @escaping @Sendable () -> Void) {
        dispatch.async { [self] in
            job()
            let next = state.withLock { state -> [@Sendable () -> Void] in
                state.running -= 1
                return Self.startable(&state)
            }
            next.forEach(launch)
        }
    }
}
