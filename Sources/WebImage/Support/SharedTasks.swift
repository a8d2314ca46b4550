import Synchronization

/// One piece of work per key at a time, shared by every caller that asks for it meanwhile (Nuke's
/// task coalescing): the first caller starts it, later ones join, and each keeps its own answer —
/// a caller whose task is cancelled leaves at once with `nil`. When the last caller has left, the
/// work is cancelled, or with ``WhenAbandoned/keepRunning`` it finishes for what it stores. The
/// one keyed shared-work primitive: the manager's loads and the server's variants run through it,
/// and the downloader's operations keep their callers in its ``SharedMembers``.
package final class SharedTasks<Key: Hashable & Sendable, Member: Sendable, Value: Sendable>: Sendable {
    /// What happens to the work once no caller waits for it.
    package enum WhenAbandoned: Sendable {
        case cancel
        case keepRunning
    }

    package typealias Work = SharedWork<Member, Value>

    private let runs = Mutex<[Key: SharedRun<Member, Value>]>([:])
    private let whenAbandoned: WhenAbandoned
    private let joinedCount = Atomic<Int>(0)
    private let onJoin: @Sendable () -> Void

    /// `onJoin` hears each caller that joins work already running.
    package init(whenAbandoned: WhenAbandoned, onJoin: @escaping @Sendable () -> Void = {}) {
        self.whenAbandoned = whenAbandoned
        self.onJoin = onJoin
    }

    /// Work in progress (none may be left once every caller has its answer).
    package var count: Int { runs.withLock { $0.count } }

    /// How many callers joined work already running.
    package var joined: Int { joinedCount.load(ordering: .relaxed) }

    /// `work`'s value for `key`, run for `member` or joined if already running; `nil` when the
    /// calling task was cancelled before it came.
    package func value(for key: Key, member: Member, work: @escaping Work) async -> Value? {
        let (run, id, isNew) = runs.withLock { runs -> (SharedRun<Member, Value>, UInt64, Bool) in
            if let running = runs[key], let id = running.join(member) { return (running, id, false) }
            let fresh = SharedRun<Member, Value>(keepsRunning: whenAbandoned == .keepRunning)
            runs[key] = fresh
            return (fresh, fresh.join(member)!, true)
        }
        if isNew {
            run.start(work) { [weak self] in self?.remove(run, for: key) }
        } else {
            joinedCount.add(1, ordering: .relaxed)
            onJoin()
        }
        return await withTaskCancellationHandler {
            await run.answer(for: id)
        } onCancel: {
            if run.leave(id) { remove(run, for: key) }
        }
    }

    private func remove(_ run: SharedRun<Member, Value>, for key: Key) {
        runs.withLock { runs in
            if runs[key] === run { runs[key] = nil }
        }
    }
}

/// Shared work: it gets the members waiting at the time it asks (to fan progress out to them).
package typealias SharedWork<Member, Value> = @Sendable (_ members: @escaping @Sendable () -> [Member]) async -> Value

/// The callers of one shared piece of work, each under the id it leaves by, in the order they
/// joined. Kept under its owner's lock; members taken out are called outside it. The first sits
/// inline: most work has one caller, and a list of one was an allocation each time.
package struct SharedMembers<Member>: Sequence {
    fileprivate typealias Entry = (id: UInt64, member: Member)
    /// The oldest member; nil only when `later` is empty too.
    private var first: Entry?
    private var later: [Entry] = []
    private var nextID: UInt64 = 0

    package init() {}

    var isEmpty: Bool { first == nil }
    var count: Int { first == nil ? 0 : 1 + later.count }
    /// Everyone still waiting.
    var all: [Member] { Array(self) }

    package struct Iterator: IteratorProtocol {
        fileprivate var head: Member?
        fileprivate var rest: IndexingIterator<[Entry]>

        package mutating func next() -> Member? {
            if let member = head {
                head = nil
                return member
            }
            return rest.next()?.member
        }
    }

    package func makeIterator() -> Iterator { Iterator(head: first?.member, rest: later.makeIterator()) }

    /// Adds `member`; the id it leaves by.
    mutating func add(_ member: Member) -> UInt64 {
        defer { nextID += 1 }
        append((nextID, member))
        return nextID
    }

    /// Takes out the member with `id`; nil when it has left already.
    mutating func remove(_ id: UInt64) -> Member? {
        if let entry = first, entry.id == id {
            first = later.isEmpty ? nil : later.removeFirst()
            return entry.member
        }
        return later.firstIndex { $0.id == id }.map { later.remove(at: $0).member }
    }

    /// Takes out everyone.
    mutating func removeAll() -> Self {
        defer { self = Self(nextID: nextID) }
        return self
    }

    func contains(where matching: (Member) -> Bool) -> Bool {
        first.map { matching($0.member) } == true || later.contains { matching($0.member) }
    }

    /// Changes the member with `id` in place; false when it has left.
    mutating func update(_ id: UInt64, _ change: (inout Member) -> Void) -> Bool {
        if first?.id == id {
            change(&first!.member)
            return true
        }
        guard let index = later.firstIndex(where: { $0.id == id }) else { return false }
        change(&later[index].member)
        return true
    }

    /// Takes out those `matching`, in order.
    mutating func removeAll(where matching: (Member) -> Bool) -> Self {
        var (taken, kept) = (Self(nextID: nextID), Self(nextID: nextID))
        func sort(_ entry: Entry) {
            if matching(entry.member) { taken.append(entry) } else { kept.append(entry) }
        }
        first.map(sort)
        later.forEach(sort)
        self = kept
        return taken
    }

    private init(nextID: UInt64) { self.nextID = nextID }

    private mutating func append(_ entry: Entry) {
        if first == nil { first = entry } else { later.append(entry) }
    }
}

extension SharedMembers: Sendable where Member: Sendable {}

/// One shared run: its members, their waiting continuations, and the value once there is one.
private final class SharedRun<Member: Sendable, Value: Sendable>: Sendable {
    private struct Waiter {
        let member: Member
        var continuation: CheckedContinuation<Value?, Never>?
    }

    private struct State {
        var waiters = SharedMembers<Waiter>()
        /// Set when the value is in or the last member left: no one may join any more.
        var isClosed = false
        var value: Value?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let keepsRunning: Bool

    init(keepsRunning: Bool) {
        self.keepsRunning = keepsRunning
    }

    /// Adds `member`; its id, or nil when the run is closed (finished or abandoned).
    func join(_ member: Member) -> UInt64? {
        state.withLock { state in
            state.isClosed ? nil : state.waiters.add(Waiter(member: member))
        }
    }

    func start(_ work: @escaping SharedWork<Member, Value>, onEnd: @escaping @Sendable () -> Void) {
        // Started by the first caller's task, which waits for it: no hop to another thread.
        let task = immediateTask {
            let value = await work { [weak self] in self?.state.withLock { $0.waiters.all.map(\.member) } ?? [] }
            onEnd()
            self.finish(value)
        }
        let abandoned = state.withLock { state in
            if !state.isClosed { state.task = task }
            return state.isClosed && state.value == nil
        }
        if abandoned { task.cancel() }
    }

    /// Waits for the value — or answers `nil` at once if member `id` already left.
    func answer(for id: UInt64) async -> Value? {
        await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Value?? in
                if let value = state.value { return .some(value) }
                guard state.waiters.update(id, { $0.continuation = continuation }) else { return .some(nil) }
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// Member `id` stops waiting (its task was cancelled) and answers `nil`. Returns whether it
    /// was the last one and the run closed with its work cancelled; work that keeps running stays
    /// open for new callers until it ends.
    func leave(_ id: UInt64) -> Bool {
        let (continuation, abandonedTask, abandoned) = state.withLock {
            state -> (CheckedContinuation<Value?, Never>?, Task<Void, Never>?, Bool) in
            guard let waiter = state.waiters.remove(id) else { return (nil, nil, false) }
            guard state.waiters.isEmpty, state.value == nil, !keepsRunning else { return (waiter.continuation, nil, false) }
            state.isClosed = true
            defer { state.task = nil }
            return (waiter.continuation, state.task, true)
        }
        continuation?.resume(returning: nil)
        abandonedTask?.cancel()
        return abandoned
    }

    private func finish(_ value: Value) {
        let waiting = state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            state.isClosed = true
            state.value = value
            state.task = nil
            return state.waiters.removeAll().compactMap(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: value) }
    }
}
