import Dispatch
import Foundation
import Synchronization

/// The time an ``AnimatedImagePlayer`` plays by: SDWebImage ticks on the display's refresh
/// (CADisplayLink); here a clock calls back at an interval. Specs and tools drive a
/// ``ManualAnimationClock`` by hand, so timing is exact and nothing sleeps.
public protocol AnimationClock: Sendable {
    /// Seconds on a monotonic scale.
    var now: Double { get }
    /// Calls `tick` with ``now`` about every `interval` seconds until the token is cancelled;
    /// never after `cancel()` returns.
    func schedule(every interval: Double, _ tick: @escaping @Sendable (Double) -> Void) -> AnimationClockToken
}

/// Stops a clock's ticks.
public final class AnimationClockToken: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
    }

    /// Idempotent.
    public func cancel() {
        onCancel.withLock { handler in
            let pending = handler
            handler = nil
            return pending
        }?()
    }
}

/// Ticks from a dispatch timer on a serial queue of its own (60 Hz by default in the player).
public struct DispatchAnimationClock: AnimationClock {
    public init() {}

    public var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    public func schedule(every interval: Double, _ tick: @escaping @Sendable (Double) -> Void) -> AnimationClockToken {
        let timer = DispatchTimer(queue: DispatchQueue(label: "WebImage.AnimationClock"))
        let clock = self
        timer.source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(2))
        timer.source.setEventHandler { tick(clock.now) }
        timer.source.resume()
        return AnimationClockToken { timer.cancel() }
    }
}

/// A dispatch timer and its queue, cancellable from anywhere.
private final class DispatchTimer: Sendable {
    /// Dispatch sources may be used from any thread (libdispatch's own locking).
    nonisolated(unsafe) let source: any DispatchSourceTimer
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<Void>()

    init(queue: DispatchQueue) {
        self.queue = queue
        source = DispatchSource.makeTimerSource(queue: queue)
        queue.setSpecific(key: key, value: ())
    }

    /// Cancelling on the timer's queue waits for a tick in progress, so none follows; from a
    /// tick itself (a handler pausing the player) it cancels in place.
    func cancel() {
        if DispatchQueue.getSpecific(key: key) != nil {
            source.cancel()
        } else {
            queue.sync { source.cancel() }
        }
    }
}

/// A clock that moves only when told: ``advance(by:)`` runs every due tick, in order, on the
/// caller's thread. For specs, and for tools that render animations faster than real time.
public final class ManualAnimationClock: AnimationClock {
    private struct Schedule {
        var interval: Double
        var due: Double
        var tick: @Sendable (Double) -> Void
    }

    private let state = Mutex((now: 0.0, schedules: [Int: Schedule](), nextID: 0))

    public init(now: Double = 0) {
        state.withLock { $0.now = now }
    }

    public var now: Double { state.withLock { $0.now } }

    public func schedule(every interval: Double, _ tick: @escaping @Sendable (Double) -> Void) -> AnimationClockToken {
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.schedules[id] = Schedule(interval: interval, due: state.now + interval, tick: tick)
            return id
        }
        return AnimationClockToken { [weak self] in _ = self?.state.withLock { $0.schedules.removeValue(forKey: id) } }
    }

    /// Moves time forward by `seconds`, ticking each schedule at each interval it passes.
    public func advance(by seconds: Double) {
        let end = state.withLock { $0.now + seconds }
        while true {
            let next: (time: Double, tick: @Sendable (Double) -> Void)? = state.withLock { state in
                guard let (id, schedule) = state.schedules.min(by: { $0.value.due < $1.value.due }),
                      schedule.due <= end + 1e-9 else { return nil }
                state.schedules[id]?.due += schedule.interval
                state.now = schedule.due
                return (schedule.due, schedule.tick)
            }
            guard let next else { break }
            next.tick(next.time)
        }
        state.withLock { $0.now = end }
    }
}
