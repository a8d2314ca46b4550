import NIOCore
import Synchronization

/// The timers of the transfers on one event loop, as one scheduled callback: a transfer joins with
/// the time it must next be looked at and leaves when it ends, and the callback — moved earlier
/// only when a transfer needs it sooner — asks each transfer's state what it makes of the time,
/// so NIO is not asked for a scheduling and a linear cancel per download.
final class TransferClock: Sendable {
    private struct State {
        var transfers: [DownloadTransfer] = []
        /// When the callback fires, if one is pending.
        var armed: NIODeadline?
        var callback: NIOScheduledCallback?

        /// Takes `transfer` out of the list (the last one moves into its slot), if it is there.
        mutating func remove(_ transfer: DownloadTransfer) {
            let slot = transfer.clockSlot.load(ordering: .relaxed)
            guard slot >= 0, slot < transfers.count, transfers[slot] === transfer else { return }
            let last = transfers.removeLast()
            if slot < transfers.count {
                transfers[slot] = last
                last.clockSlot.store(slot, ordering: .relaxed)
            }
            transfer.clockSlot.store(-1, ordering: .relaxed)
        }
    }

    let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Watches `transfer` until it leaves; it wants a look at `deadline`.
    func join(_ transfer: DownloadTransfer, at deadline: NIODeadline) {
        let rearm = state.withLock { state -> Bool in
            transfer.clockSlot.store(state.transfers.count, ordering: .relaxed)
            state.transfers.append(transfer)
            guard state.armed.map({ deadline < $0 }) ?? true else { return false }
            state.armed = deadline
            return true
        }
        if rearm { arm(at: deadline) }
    }

    /// `transfer` ended: it is not looked at again.
    func leave(_ transfer: DownloadTransfer) {
        state.withLock { $0.remove(transfer) }
    }

    private func arm(at deadline: NIODeadline) {
        let callback = try? eventLoop.scheduleCallback(at: deadline, handler: Fired(clock: self))
        let replaced = state.withLock { state -> NIOScheduledCallback? in
            guard state.armed == deadline else { return callback }  // an earlier one won meanwhile
            defer { state.callback = callback }
            return state.callback
        }
        replaced?.cancel()
    }

    private func fired() {
        let now = NIODeadline.now()
        let transfers = state.withLock { state in
            state.armed = nil
            state.callback = nil
            return state.transfers
        }
        var next: NIODeadline?
        var done: [DownloadTransfer] = []
        for transfer in transfers {
            if let wanted = transfer.clockTicked(now: now) { next = min(next ?? wanted, wanted) } else { done.append(transfer) }
        }
        // Those that want no more looks leave here too: one that ended as it joined never left itself.
        let rearm = state.withLock { state -> Bool in
            done.forEach { state.remove($0) }
            guard let next, state.armed.map({ next < $0 }) ?? true else { return false }
            state.armed = next
            return true
        }
        if rearm, let next { arm(at: next) }
    }

    private struct Fired: NIOScheduledCallbackHandler {
        let clock: TransferClock
        func handleScheduledCallback(eventLoop: some EventLoop) { clock.fired() }
    }
}

/// One clock per event loop of a group, found by the loop (a linear look over a handful).
final class TransferClocks: Sendable {
    private let clocks = Mutex<[TransferClock]>([])

    func clock(for eventLoop: any EventLoop) -> TransferClock {
        clocks.withLock { clocks in
            if let clock = clocks.first(where: { $0.eventLoop === eventLoop }) { return clock }
            let clock = TransferClock(eventLoop: eventLoop)
            clocks.append(clock)
            return clock
        }
    }
}
