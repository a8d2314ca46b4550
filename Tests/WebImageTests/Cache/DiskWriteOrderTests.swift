import Synchronization
import Testing
@testable import WebImage

@Suite("DiskWriteOrder: the last write asked for wins, and a dropped one waits for it")
struct DiskWriteOrderTests {
    private final class Calls: Sendable {
        let names = Mutex<[String]>([])
        func waiter(_ name: String) -> DiskWriteOrder.Waiter { { self.names.withLock { $0.append(name) } } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test("only the last ticket of a key is current; ending an older one settles nothing")
    func lastTicketWins() {
        var order = DiskWriteOrder()
        let first = order.ticket(for: "k")
        let second = order.ticket(for: "k")
        #expect(!order.isCurrent(first, for: "k"))
        #expect(order.isCurrent(second, for: "k"))
        let calls = Calls()
        let waits = order.whenSettled("k", calls.waiter("dropped first"))
        #expect(waits)
        let released = order.end(first, for: "k")
        #expect(released.isEmpty)
        #expect(!order.isSettled("k"))
        order.end(second, for: "k").forEach { $0() }
        #expect(calls.all == ["dropped first"])
        #expect(order.isSettled("k"))
        let waitsWhenSettled = order.whenSettled("k", calls.waiter("too late"))
        #expect(!waitsWhenSettled)  // settled: the caller runs it
    }

    @Test("keys settle on their own; a clear drops every write and hands back every waiter")
    func clearReleasesEveryone() {
        var order = DiskWriteOrder()
        let a = order.ticket(for: "a")
        _ = order.ticket(for: "b")
        let calls = Calls()
        let waitA = order.whenSettled("a", calls.waiter("a"))
        let waitB = order.whenSettled("b", calls.waiter("b"))
        #expect(waitA && waitB)
        order.end(a, for: "a").forEach { $0() }
        #expect(calls.all == ["a"])
        order.clear().forEach { $0() }
        #expect(Set(calls.all) == ["a", "b"])
        #expect(order.isSettled("b"))
    }
}
