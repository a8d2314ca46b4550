import Synchronization

/// One piece of work per key at a time, shared by every caller that asks for it meanwhile (Nuke's
/// task coalescing): the first caller starts it, later ones join, and each keeps its own answer —
/// a caller whose task is cancelled leaves at once with `nil`. When the last caller has left, the
/// work is cancelled, or with ``WhenAbandoned/keepRunning`` it finishes for what it stores. The
/// one keyed shared-work primitive: the manager's loads, the downloader's downloads and the
/// server's variants and detections run through it.
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

    /// Callers waiting, every run together.
    package var waiting: Int { runs.withLock { $0.values.reduce(0) { $0 + $1.waiting } } }

    /// `work`'s value for `key`, run for `member` or joined if already running; `nil` when the
    /// calling task was cancelled before it came.
    package func value(for key: Key, member: Member, work: @escaping Work) async -> Value? {
        await join(key, member: member) { AsyncJob(work) }.value()
    }

    /// Joins `member` to the run for `key`, or — when none takes callers — starts the job
    /// `prepare` makes, which may refuse with its error. `prepare` runs outside any lock (it may
    /// run app code), so another caller may start the key meanwhile: its run is joined, and the
    /// prepared job dropped unstarted. Returns at once; the ticket waits for the value.
    package func join<Failure: Error>(
        _ key: Key, member: Member, prepare: () throws(Failure) -> any SharedJob<Member, Value>
    ) throws(Failure) -> SharedTicket<Member, Value> {
        if let ticket = joinRunning(key, member) { return ticket }
        let job = try prepare()
        let (run, id, isNew) = runs.withLock { runs -> (SharedRun<Member, Value>, UInt64, Bool) in
            if let running = runs[key], let id = running.join(member) { return (running, id, false) }
            // A strong reference: a weak one gives the object a side table, and its every retain
            // then takes the slow path. The run ends, and lets go of it.
            let fresh = SharedRun<Member, Value>(job: job, keepsRunning: whenAbandoned == .keepRunning) { run in self.remove(run, for: key) }
            runs[key] = fresh
            return (fresh, fresh.join(member)!, true)
        }
        if isNew { run.start() } else { joinedRunning(run, member) }
        return SharedTicket(run: run, id: id)
    }

    /// Every run ends now: each caller is answered `nil`, and each work is cancelled.
    package func cancelAll() {
        let all = runs.withLock { runs in
            defer { runs = [:] }
            return Array(runs.values)
        }
        for run in all { run.abandon() }
    }

    private func joinRunning(_ key: Key, _ member: Member) -> SharedTicket<Member, Value>? {
        guard let (run, id) = runs.withLock({ runs in runs[key].flatMap { run in run.join(member).map { (run, $0) } } }) else {
            return nil
        }
        joinedRunning(run, member)
        return SharedTicket(run: run, id: id)
    }

    private func joinedRunning(_ run: SharedRun<Member, Value>, _ member: Member) {
        joinedCount.add(1, ordering: .relaxed)
        onJoin()
        run.job.joined(member)
    }

    private func remove(_ run: SharedRun<Member, Value>, for key: Key) {
        runs.withLock { runs in
            if runs[key] === run { runs[key] = nil }
        }
    }
}

/// The work of one shared run: started once, told of each caller who joins later (a download
/// raises its queue priority for a more urgent one), cancelled when the run is abandoned — at any
/// time, even while it starts.
package protocol SharedJob<Member, Value>: Sendable {
    associatedtype Member: Sendable
    associatedtype Value: Sendable

    /// Starts the work, which hands its value to `run` once, on any thread.
    func start(_ run: SharedRunHandle<Member, Value>)
    func joined(_ member: Member)
    func cancel()
}

extension SharedJob {
    package func joined(_ member: Member) {}
}

/// What a job sees of its run: the callers waiting, and where its value goes.
package struct SharedRunHandle<Member: Sendable, Value: Sendable>: Sendable {
    fileprivate let run: SharedRun<Member, Value>

    /// The callers waiting now, in the order they joined (to fan progress out to them).
    package var members: [Member] { run.members }

    /// The work's value: every caller still waiting gets it.
    package func finish(_ value: Value) { run.finish(value) }
}

/// Shared work written as one async function, run on a task of its own.
private final class AsyncJob<Member: Sendable, Value: Sendable>: SharedJob {
    private let work: SharedWork<Member, Value>
    /// The task once started; cancelled first, it never starts one.
    private let task = Mutex<(task: Task<Void, Never>?, isCancelled: Bool)>((nil, false))

    init(_ work: @escaping SharedWork<Member, Value>) {
        self.work = work
    }

    func start(_ run: SharedRunHandle<Member, Value>) {
        // Started by the first caller's task, which waits for it: no hop to another thread.
        let started = immediateTask { [work] in run.finish(await work { run.members }) }
        let cancelled = task.withLock { state in
            state.task = started
            return state.isCancelled
        }
        if cancelled { started.cancel() }
    }

    func cancel() {
        task.withLock { state in
            state.isCancelled = true
            return state.task
        }?.cancel()
    }
}

/// One caller's place in a shared run.
package struct SharedTicket<Member: Sendable, Value: Sendable>: Sendable {
    fileprivate let run: SharedRun<Member, Value>
    fileprivate let id: UInt64

    /// The run's value — or `nil` once this caller has left, or its task was cancelled (which leaves).
    package func value() async -> Value? {
        await withTaskCancellationHandler {
            await run.answer(for: id)
        } onCancel: {
            leave()
        }
    }

    /// This caller stops waiting and is answered `nil`; the last one to leave abandons the run.
    package func leave() {
        run.leave(id)
    }
}

/// Shared work: it gets the members waiting at the time it asks (to fan progress out to them).
package typealias SharedWork<Member, Value> = @Sendable (_ members: @escaping @Sendable () -> [Member]) async -> Value

/// The callers of one shared piece of work, each under the id it leaves by, in the order they
/// joined. Kept under its owner's lock; members taken out are called outside it. The first sits
/// inline: most work has one caller, and a list of one is an allocation.
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

    private init(nextID: UInt64) { self.nextID = nextID }

    private mutating func append(_ entry: Entry) {
        if first == nil { first = entry } else { later.append(entry) }
    }
}

extension SharedMembers: Sendable where Member: Sendable {}

/// A member waiting for its run's value: resumed with `true` when the value is in, `false` when
/// it left. Unchecked in release builds, like `withHandOff`'s (each is resumed once, under the
/// run's lock); its type is the same for every run, so no metadata is looked up per use.
#if DEBUG
private typealias AnswerContinuation = CheckedContinuation<Bool, Never>
#else
private typealias AnswerContinuation = UnsafeContinuation<Bool, Never>
#endif

/// One shared run: its job, its members and their waiting continuations, and the value once
/// there is one.
private final class SharedRun<Member: Sendable, Value: Sendable>: Sendable {
    private struct Waiter {
        let member: Member
        var continuation: AnswerContinuation?
    }

    private struct State {
        var waiters = SharedMembers<Waiter>()
        /// Set when the value is in or the last member left: no one may join any more.
        var isClosed = false
        var value: Value?
    }

    let job: any SharedJob<Member, Value>
    private let state = Mutex(State())
    private let keepsRunning: Bool
    /// Takes the run off its key: once its value is in, or it is abandoned.
    private let ended: @Sendable (SharedRun) -> Void

    init(job: any SharedJob<Member, Value>, keepsRunning: Bool, ended: @escaping @Sendable (SharedRun) -> Void) {
        self.job = job
        self.keepsRunning = keepsRunning
        self.ended = ended
    }

    var waiting: Int { state.withLock { $0.waiters.count } }

    var members: [Member] { state.withLock { $0.waiters.all.map(\.member) } }

    /// Adds `member`; its id, or nil when the run is closed (finished or abandoned).
    func join(_ member: Member) -> UInt64? {
        state.withLock { state in
            state.isClosed ? nil : state.waiters.add(Waiter(member: member))
        }
    }

    func start() {
        job.start(SharedRunHandle(run: self))
    }

    /// Waits for the value — or answers `nil` at once if member `id` already left.
    func answer(for id: UInt64) async -> Value? {
        let answered = await withAnswerContinuation { continuation in
            let immediate = state.withLock { state -> Bool? in
                if state.value != nil { return true }
                guard state.waiters.update(id, { $0.continuation = continuation }) else { return false }
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        // Read under the lock it was stored under, not carried by the resume: ThreadSanitizer sees
        // that edge (see `withHandOff`), and the continuation's type stays the same for every run.
        return answered ? state.withLock { $0.value } : nil
    }

    /// Member `id` stops waiting and is answered `nil`. The last one to leave closes the run and
    /// cancels its work; work that keeps running stays open for new callers until it ends.
    func leave(_ id: UInt64) {
        let (continuation, abandoned) = state.withLock { state -> (AnswerContinuation?, Bool) in
            guard let waiter = state.waiters.remove(id) else { return (nil, false) }
            guard state.waiters.isEmpty, state.value == nil, !keepsRunning else { return (waiter.continuation, false) }
            state.isClosed = true
            return (waiter.continuation, true)
        }
        continuation?.resume(returning: false)
        guard abandoned else { return }
        ended(self)
        job.cancel()
    }

    /// Ends the run at once: every caller is answered `nil`, and the work is cancelled.
    func abandon() {
        let (waiting, running) = state.withLock { state in
            state.isClosed = true
            return (state.waiters.removeAll(), state.value == nil)
        }
        for waiter in waiting { waiter.continuation?.resume(returning: false) }
        if running { job.cancel() }
    }

    func finish(_ value: Value) {
        ended(self)
        let waiting = state.withLock { state in
            state.isClosed = true
            state.value = value
            return state.waiters.removeAll()
        }
        for waiter in waiting { waiter.continuation?.resume(returning: true) }
    }

    private func withAnswerContinuation(_ body: (AnswerContinuation) -> Void) async -> Bool {
        #if DEBUG
        await withCheckedContinuation(body)
        #else
        await withUnsafeContinuation(body)
        #endif
    }
}
