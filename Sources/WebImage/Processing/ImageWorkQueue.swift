import DequeModule
import Foundation
import Synchronization

/// A FIFO queue that runs at most ``maxConcurrentCount`` CPU-heavy image jobs at once (Nuke's
/// decoding and processing queues), so concurrent downloads do not each hold full-size bitmaps at once.
///
/// Jobs run on the queue's own worker threads — as many as ``maxConcurrentCount``, started as
/// needed and kept — never on Swift's cooperative pool, which a long decode would starve. Fixed
/// threads also bound the memory a decode leaves behind: glibc gives each thread its own malloc
/// arena, and a decoder's many mid-sized buffers stay in the arena of whichever thread ran it.
///
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
        var workers = 0
        var idle = 0
        var running = 0
        var waiting: Deque<@Sendable () -> Void> = []
    }

    /// What a worker does next.
    private enum Turn {
        case run(@Sendable () -> Void)
        case wait
        case exit
    }

    private let label: String
    private let state: Mutex<State>
    /// Idle workers sleep here; one signal wakes one for one new job.
    private let wakeUp = DispatchSemaphore(value: 0)

    /// A queue running at most `maxConcurrentCount` jobs at once (default: one per core).
    public init(label: String, maxConcurrentCount: Int = ImageWorkQueue.defaultWidth) {
        self.label = label
        state = Mutex(State(maxConcurrentCount: max(1, maxConcurrentCount)))
    }

    /// Jobs at once. Raising it starts waiting jobs now; lowering it lets running ones finish
    /// (the extra workers leave as they become free).
    public var maxConcurrentCount: Int {
        get { state.withLock { $0.maxConcurrentCount } }
        set {
            let (spawn, wake) = state.withLock { state -> (Int, Int) in
                state.maxConcurrentCount = max(1, newValue)
                let wake = min(state.idle, state.waiting.count)
                state.idle -= wake
                let spawn = max(0, min(state.waiting.count - wake, state.maxConcurrentCount - state.workers))
                state.workers += spawn
                return (spawn, wake)
            }
            for _ in 0..<wake { wakeUp.signal() }
            for _ in 0..<spawn { startWorker() }
        }
    }

    /// Jobs running now and jobs waiting for a slot.
    public var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// One job per active core.
    public static var defaultWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Queues `job`; it runs when a worker is free, in the order jobs were queued.
    public func async(_ job: @escaping @Sendable () -> Void) {
        let (wake, spawn) = state.withLock { state -> (Bool, Bool) in
            state.waiting.append(job)
            if state.idle > 0 {
                state.idle -= 1
                return (true, false)
            }
            guard state.workers < state.maxConcurrentCount else { return (false, false) }
            state.workers += 1
            return (false, true)
        }
        if wake { wakeUp.signal() }
        if spawn { startWorker() }
    }

    /// Runs `job` in its turn and returns its result.
    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T {
        await withHandOff { deliver in
            self.async { deliver(job()) }
        }
    }

    private func startWorker() {
        #if WEBIMAGE_TSAN
        // TSan follows GCD's hand-offs but not a plain thread's through a continuation; a private
        // queue, because a block parked for good on a global one starves that queue on Linux.
        DispatchQueue(label: label).async { [self] in work() }
        #else
        let thread = Thread { [self] in work() }
        thread.name = label
        thread.start()
        #endif
    }

    private func work() {
        while true {
            let turn = state.withLock { state -> Turn in
                if state.workers > state.maxConcurrentCount {
                    state.workers -= 1
                    return .exit
                }
                if let job = state.waiting.popFirst() {
                    state.running += 1
                    return .run(job)
                }
                state.idle += 1
                return .wait
            }
            switch turn {
            case .run(let job):
                job()
                state.withLock { $0.running -= 1 }
            case .wait:
                wakeUp.wait()
            case .exit:
                return
            }
        }
    }
}
