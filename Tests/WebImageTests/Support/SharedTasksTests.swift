import Synchronization
import Testing
@testable import WebImage

/// The one keyed shared-work primitive (the manager's loads, the server's variants): one run per
/// key, every caller its own answer, and what happens to work nobody waits for any more.
@Suite("SharedTasks: one run per key, each caller answered once, abandoned work cancelled or kept running")
struct SharedTasksTests {
    /// Work that counts its runs and waits for `gate` before answering `value`; it records whether
    /// it saw its task cancelled.
    private final class Work: Sendable {
        let runs = Atomic<Int>(0)
        let sawCancel = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let gate = OriginGate()
        let value: Int

        init(value: Int) { self.value = value }

        var runCount: Int { runs.load(ordering: .relaxed) }
        var wasCancelled: Bool { sawCancel.load(ordering: .relaxed) }
        var hasFinished: Bool { finished.load(ordering: .relaxed) }

        func body(_ members: @escaping @Sendable () -> [String]) async -> Int {
            runs.add(1, ordering: .relaxed)
            await gate.wait()
            if Task.isCancelled { sawCancel.store(true, ordering: .relaxed) }
            finished.store(true, ordering: .relaxed)
            return value
        }
    }

    @Test("callers of one key at once share one run and all get its value; another key runs on its own", arguments: [
        SharedTasks<String, String, Int>.WhenAbandoned.cancel, .keepRunning,
    ])
    func oneRunPerKey(_ policy: SharedTasks<String, String, Int>.WhenAbandoned) async {
        let shared = SharedTasks<String, String, Int>(whenAbandoned: policy)
        let a = Work(value: 1), b = Work(value: 2)
        let callers = (0..<8).map { index in
            Task { await shared.value(for: "a", member: "caller \(index)", work: a.body) }
        }
        let other = Task { await shared.value(for: "b", member: "other", work: b.body) }
        #expect(await eventually { shared.joined == 7 && shared.count == 2 })
        a.gate.open()
        b.gate.open()
        for caller in callers { #expect(await caller.value == 1) }
        #expect(await other.value == 2)
        #expect(a.runCount == 1 && b.runCount == 1)
        #expect(await eventually { shared.count == 0 })
    }

    @Test("the work sees every caller waiting (to fan progress out), and no longer one that left")
    func membersAreTheWaitingCallers() async {
        let shared = SharedTasks<String, String, [String]>(whenAbandoned: .cancel)
        let gate = OriginGate()
        let first = Task {
            await shared.value(for: "k", member: "first") { members in
                await gate.wait()
                return members().sorted()
            }
        }
        #expect(await eventually { shared.count == 1 })
        let second = Task { await shared.value(for: "k", member: "second") { _ in [] } }
        let third = Task { await shared.value(for: "k", member: "third") { _ in [] } }
        #expect(await eventually { shared.joined == 2 })
        third.cancel()
        #expect(await third.value == nil, "a caller that leaves is answered at once, with nothing")
        gate.open()
        #expect(await first.value == ["first", "second"])
        #expect(await second.value == ["first", "second"])
    }

    @Test("a cancelled caller leaves at once; the others still get the value from the one run", arguments: [
        SharedTasks<String, String, Int>.WhenAbandoned.cancel, .keepRunning,
    ])
    func oneLeaves(_ policy: SharedTasks<String, String, Int>.WhenAbandoned) async {
        let shared = SharedTasks<String, String, Int>(whenAbandoned: policy)
        let work = Work(value: 7)
        let staying = Task { await shared.value(for: "k", member: "staying", work: work.body) }
        #expect(await eventually { shared.count == 1 })
        let leaving = Task { await shared.value(for: "k", member: "leaving", work: work.body) }
        #expect(await eventually { shared.joined == 1 })
        leaving.cancel()
        #expect(await leaving.value == nil)
        work.gate.open()
        #expect(await staying.value == 7)
        #expect(!work.wasCancelled && work.runCount == 1)
    }

    @Test("when the last caller leaves, .cancel cancels the work and the next caller starts a new run")
    func abandonedWorkIsCancelled() async {
        let shared = SharedTasks<String, String, Int>(whenAbandoned: .cancel)
        let work = Work(value: 1)
        let only = Task { await shared.value(for: "k", member: "only", work: work.body) }
        #expect(await eventually { shared.count == 1 })
        only.cancel()
        #expect(await only.value == nil)
        #expect(shared.count == 0, "an abandoned run takes no callers")
        work.gate.open()
        #expect(await eventually { work.hasFinished })
        #expect(work.wasCancelled)
        let next = Work(value: 2)
        next.gate.open()
        #expect(await shared.value(for: "k", member: "next", work: next.body) == 2)
    }

    @Test("when the last caller leaves, .keepRunning lets the work finish, and a caller meanwhile joins it instead of starting another")
    func abandonedWorkKeepsRunning() async {
        let shared = SharedTasks<String, String, Int>(whenAbandoned: .keepRunning)
        let work = Work(value: 5)
        let only = Task { await shared.value(for: "k", member: "only", work: work.body) }
        #expect(await eventually { shared.count == 1 })
        only.cancel()
        #expect(await only.value == nil)
        #expect(shared.count == 1, "the run goes on")
        let later = Task { await shared.value(for: "k", member: "later", work: work.body) }
        #expect(await eventually { shared.joined == 1 })
        work.gate.open()
        #expect(await later.value == 5)
        #expect(!work.wasCancelled && work.runCount == 1)
        #expect(await eventually { shared.count == 0 })
    }
}
