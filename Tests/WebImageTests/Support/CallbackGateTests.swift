import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Records what a gate delivered.
private final class Deliveries: Sendable {
    private let events = Mutex<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

/// Holds a delivery open on its thread until the test releases it, and remembers whether it ended.
private final class HeldDelivery: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let ended = Mutex(false)

    func hold() {
        entered.signal()
        gate.wait()
        ended.withLock { $0 = true }
    }
    func waitUntilHeld() { entered.wait() }
    func release() { gate.signal() }
    var hasEnded: Bool { ended.withLock { $0 } }
}

/// A counter many threads bump.
private final class Ticker: Sendable {
    private let value = Mutex(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// Runs `body` on a thread of its own; `isDone` tells when it returned.
private final class Background: Sendable {
    private let done = Mutex(false)
    init(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            body()
            done.withLock { $0 = true }
        }
    }
    var isDone: Bool { done.withLock { $0 } }
}

@Suite("CallbackGate: answers once, nothing after cancel")
struct CallbackGateTests {
    @Test("a finish and a cancel racing on two threads: exactly one final answer, every time")
    func exactlyOnce() async {
        for _ in 0..<500 {
            let deliveries = Deliveries()
            let gate = CallbackGate<String> { deliveries.record($0) }
            let start = DispatchSemaphore(value: 0)
            let finisher = Background { start.wait(); gate.finish("answer") }
            let canceller = Background { start.wait(); gate.cancel(delivering: "cancelled") }
            start.signal()
            start.signal()
            _ = await eventually { finisher.isDone && canceller.isDone }
            #expect(deliveries.all.count == 1)
            gate.send("late")
            gate.finish("late")
            #expect(deliveries.all.count == 1)
        }
    }

    @Test("cancel waits for a delivery in flight on another thread: nothing arrives after it returns")
    func cancelWaitsForDeliveryInFlight() async {
        let held = HeldDelivery()
        let deliveries = Deliveries()
        let gate = CallbackGate<String> { event in
            if event == "progress" { held.hold() }
            deliveries.record(event)
        }
        let sender = Background { gate.send("progress") }
        held.waitUntilHeld()
        let endedWhenCancelReturned = Mutex<Bool?>(nil)
        let canceller = Background {
            gate.cancel(delivering: "cancelled")
            endedWhenCancelReturned.withLock { $0 = held.hasEnded }
        }
        // The cancel must not get past the delivery in flight, however long we give it.
        let returnedEarly = await eventually(timeout: .milliseconds(300)) { canceller.isDone }
        held.release()
        #expect(await eventually { sender.isDone && canceller.isDone })
        #expect(!returnedEarly)
        #expect(endedWhenCancelReturned.withLock { $0 } == true)
        #expect(deliveries.all == ["progress", "cancelled"])
    }

    @Test("a sink that cancels its own gate from inside a delivery: no deadlock, the cancel answer inside, nothing after")
    func reentrantCancel() {
        let deliveries = Deliveries()
        let box = Mutex<CallbackGate<String>?>(nil)
        let gate = CallbackGate<String> { event in
            deliveries.record(event)
            if event == "progress" { box.withLock { $0 }?.cancel(delivering: "cancelled") }
        }
        box.withLock { $0 = gate }
        gate.send("progress")
        gate.finish("answer")
        #expect(deliveries.all == ["progress", "cancelled"])
        #expect(gate.isCancelled && !gate.isOpen)
    }

    @Test("events built in their turn arrive in order, from many threads")
    func orderedCounts() async {
        let seen = Mutex<[Int]>([])
        let counter = Ticker()
        let gate = CallbackGate<Int> { value in seen.withLock { $0.append(value) } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { gate.send { counter.next() } }
            }
        }
        #expect(seen.withLock { $0 } == Array(1...200))
    }

    @Test("PrefetchToken.cancel waits for a progress report in flight: none arrives after it returns")
    func prefetchTokenCancel() async {
        let held = HeldDelivery()
        let token = PrefetchToken(urls: [URL(string: "https://example.com/a.png")!], progress: { _, _ in held.hold() },
                                  completion: nil, onEnd: { _ in })
        let recorder = Background { token.record(succeeded: true) }
        held.waitUntilHeld()
        let endedWhenCancelReturned = Mutex<Bool?>(nil)
        let canceller = Background {
            token.cancel()
            endedWhenCancelReturned.withLock { $0 = held.hasEnded }
        }
        let returnedEarly = await eventually(timeout: .milliseconds(300)) { canceller.isDone }
        held.release()
        #expect(await eventually { recorder.isDone && canceller.isDone })
        #expect(!returnedEarly)
        #expect(endedWhenCancelReturned.withLock { $0 } == true)
    }
}
