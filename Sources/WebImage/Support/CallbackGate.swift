import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one implementation of WebImage's callback rule — events in order, one final answer, and
/// nothing at all once ``cancel(delivering:)`` has returned — behind every object that hands
/// results to a caller: ``CombinedOperation``, ``ImageCacheToken``, ``PrefetchToken``, and each
/// caller of a download or local load.
///
/// Deliveries run the sink under a delivery lock, so they never overlap and a cancel from another
/// thread waits for one in flight. A sink that cancels its own gate (or sends to it) from inside a
/// delivery runs on the delivering thread, which the gate recognises, so it does not wait for
/// itself. Whoever takes the sink out of the state first — the final answer or the cancel — is
/// the only one to deliver a final event.
final class CallbackGate<Event: Sendable>: Sendable {
    private struct State {
        var sink: (@Sendable (Event) -> Void)?
        var isCancelled = false
        var task: Task<Void, Never>?
        /// The thread running the sink right now.
        var deliveringThread: pthread_t?
    }

    private let state: Mutex<State>
    /// Held while the sink (user code) runs.
    private let delivery = Mutex(())

    init(_ sink: @escaping @Sendable (Event) -> Void) {
        state = Mutex(State(sink: sink))
    }

    /// A gate that has already answered: it delivers nothing.
    static func closed() -> CallbackGate {
        let gate = CallbackGate { _ in }
        gate.state.withLock { $0.sink = nil }
        return gate
    }

    /// Open until the final answer is delivered or the gate is cancelled.
    var isOpen: Bool { state.withLock { $0.sink != nil } }

    /// Whether ``cancel(delivering:)`` closed the gate (before any final answer).
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancelled with the gate; cancelled at once when the gate is closed already.
    func attach(_ task: Task<Void, Never>) {
        let closed = state.withLock { state in
            if state.sink != nil { state.task = task }
            return state.sink == nil
        }
        if closed { task.cancel() }
    }

    /// Delivers a non-final event unless the gate is closed.
    func send(_ event: Event) {
        send { event }
    }

    /// Builds the event in its turn (so counts taken inside reach the sink in order) and delivers
    /// it, unless the gate is closed — then `make` is not called. `make` runs as part of the
    /// delivery: it may call code that cancels this gate.
    func send(_ make: () -> Event?) {
        serialized {
            guard let sink = state.withLock({ $0.sink }) else { return }
            run { make().map(sink) }
        }
    }

    /// Delivers the final event; `false` (and nothing delivered) when the gate was closed.
    @discardableResult
    func finish(_ event: Event) -> Bool {
        finish { event }
    }

    /// ``finish(_:)`` with the event built in its turn.
    @discardableResult
    func finish(_ make: () -> Event) -> Bool {
        var delivered = false
        serialized {
            let sink = state.withLock { state in
                defer { state.sink = nil; state.task = nil }
                return state.sink
            }
            guard let sink else { return }
            delivered = true
            run { sink(make()) }
        }
        return delivered
    }

    /// Closes the gate: delivers `final` (if any) inside this call, returns only when no delivery
    /// is in flight — nothing arrives afterwards — and cancels the attached task. Returns whether
    /// the gate was open.
    ///
    /// The task is cancelled after the delivery lock is let go: its cancellation handlers run
    /// right here and reach other gates (a shared load's download answering its token), whose
    /// deliveries may be waiting for this gate's lock to hand it a progress report: cancelling
    /// under the lock can deadlock.
    @discardableResult
    func cancel(delivering final: Event?) -> Bool {
        var wasOpen = false
        var task: Task<Void, Never>?
        serialized {
            let taken = state.withLock { state -> ((@Sendable (Event) -> Void)?, Task<Void, Never>?) in
                guard state.sink != nil else { return (nil, nil) }
                state.isCancelled = true
                defer { state.sink = nil; state.task = nil }
                return (state.sink, state.task)
            }
            guard let sink = taken.0 else { return }
            wasOpen = true
            task = taken.1
            if let final { run { sink(final) } }
        }
        task?.cancel()
        return wasOpen
    }

    /// `body` under the delivery lock — unless this thread is the one delivering (a sink that
    /// cancels or answers its own gate), which holds it already.
    private func serialized(_ body: () -> Void) {
        let me = pthread_self()
        if state.withLock({ $0.deliveringThread.map { pthread_equal($0, me) != 0 } ?? false }) {
            body()
        } else {
            delivery.withLock { _ in body() }
        }
    }

    private func run(_ body: () -> Void) {
        let previous = state.withLock { state in
            defer { state.deliveringThread = pthread_self() }
            return state.deliveringThread
        }
        body()
        state.withLock { $0.deliveringThread = previous }
    }
}
