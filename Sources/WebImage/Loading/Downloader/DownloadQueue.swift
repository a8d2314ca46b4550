import DequeModule
import Synchronization

/// Something the ``DownloadQueue`` starts when a slot is free.
protocol DownloadQueueItem: AnyObject, Sendable {
    /// Called once, outside the queue's lock, when the item may begin.
    func startFromQueue()
}

/// Queue priority of one download (SD maps its high/low priority options to
/// `NSOperationQueuePriority`).
enum DownloadPriority: Int, Sendable, CaseIterable {
    case high = 0, normal, low

    /// The priority `options` ask for.
    init(_ options: DownloaderOptions) {
        self = options.contains(.highPriority) ? .high : options.contains(.lowPriority) ? .low : .normal
    }
}

/// The downloader's own queue (SD uses an `NSOperationQueue`): at most `maxConcurrent` items
/// running, the next one chosen by priority and then FIFO or LIFO order, and suspendable.
final class DownloadQueue: Sendable {
    private struct State {
        var maxConcurrent: Int
        var order: DownloaderConfig.ExecutionOrder
        var isSuspended = false
        /// Callers of ``holdingStarts(_:)`` in progress.
        var holds = 0
        /// Waiting items by priority (index = ``DownloadPriority/rawValue``).
        var waiting: [Deque<any DownloadQueueItem>] = Array(repeating: [], count: DownloadPriority.allCases.count)
        var running: [ObjectIdentifier: any DownloadQueueItem] = [:]

        /// Takes the items that may start now, marking them running.
        mutating func takeStartable() -> [any DownloadQueueItem] {
            var started: [any DownloadQueueItem] = []
            while !isSuspended, holds == 0, running.count < maxConcurrent,
                  let bucket = waiting.firstIndex(where: { !$0.isEmpty }) {
                // Deque: O(1) at both ends (an Array's removeFirst moved every waiting item).
                let item = order == .fifo ? waiting[bucket].removeFirst() : waiting[bucket].removeLast()
                running[ObjectIdentifier(item)] = item
                started.append(item)
            }
            return started
        }
    }

    private let state: Mutex<State>

    init(maxConcurrent: Int, order: DownloaderConfig.ExecutionOrder) {
        state = Mutex(State(maxConcurrent: max(1, maxConcurrent), order: order))
    }

    /// Adds `item`; it starts now when a slot is free, else when one frees up.
    func enqueue(_ item: any DownloadQueueItem, priority: DownloadPriority) {
        let start = state.withLock { state in
            state.waiting[priority.rawValue].append(item)
            return state.takeStartable()
        }
        start.forEach { $0.startFromQueue() }
    }

    /// Marks `item` running when it may start at once — a free slot, nobody waiting, not
    /// suspended — without queueing it; `false` leaves it to ``enqueue(_:priority:)``.
    func startAtOnce(_ item: any DownloadQueueItem) -> Bool {
        state.withLock { state in
            guard !state.isSuspended, state.holds == 0, state.running.count < state.maxConcurrent,
                  state.waiting.allSatisfy(\.isEmpty) else { return false }
            state.running[ObjectIdentifier(item)] = item
            return true
        }
    }

    /// Removes `item`, waiting or running, and starts whatever its slot allows. Safe to call
    /// more than once.
    func remove(_ item: any DownloadQueueItem) {
        let start = state.withLock { state in
            let id = ObjectIdentifier(item)
            if state.running.removeValue(forKey: id) == nil {
                for bucket in state.waiting.indices { state.waiting[bucket].removeAll { $0 === item } }
            }
            return state.takeStartable()
        }
        start.forEach { $0.startFromQueue() }
    }

    /// Moves `item`, if it is waiting, to `priority`'s turn (a more urgent caller joined it).
    func raise(_ item: any DownloadQueueItem, to priority: DownloadPriority) {
        state.withLock { state in
            for bucket in state.waiting.indices where bucket > priority.rawValue {
                guard let index = state.waiting[bucket].firstIndex(where: { $0 === item }) else { continue }
                state.waiting[bucket].remove(at: index)
                state.waiting[priority.rawValue].append(item)
                return
            }
        }
    }

    /// Runs `body` with no item started meanwhile; what may start then starts after it.
    func holdingStarts(_ body: () -> Void) {
        state.withLock { $0.holds += 1 }
        body()
        let start = state.withLock { state in
            state.holds -= 1
            return state.takeStartable()
        }
        start.forEach { $0.startFromQueue() }
    }

    /// Stops starting items; running ones go on (SD's `setSuspended:YES`).
    func suspend() { state.withLock { $0.isSuspended = true } }

    /// Starts items again.
    func resume() {
        let start = state.withLock { state in
            state.isSuspended = false
            return state.takeStartable()
        }
        start.forEach { $0.startFromQueue() }
    }

    var isSuspended: Bool { state.withLock { $0.isSuspended } }

    /// Changes the limit; a higher one starts waiting items at once.
    func setMaxConcurrent(_ limit: Int) {
        let start = state.withLock { state in
            state.maxConcurrent = max(1, limit)
            return state.takeStartable()
        }
        start.forEach { $0.startFromQueue() }
    }

    var maxConcurrent: Int { state.withLock { $0.maxConcurrent } }
    var runningCount: Int { state.withLock { $0.running.count } }
    var waitingCount: Int { state.withLock { $0.waiting.reduce(0) { $0 + $1.count } } }
}
