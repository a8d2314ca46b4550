import Synchronization

/// Skips a failing dependency for a while: after `failureThreshold` consecutive failures the
/// breaker opens and every call is refused at once for `cooldown`; then one probe call is let
/// through — its success closes the breaker, its failure opens it for another cooldown.
public final class CircuitBreaker: Sendable {
    public enum State: Sendable, Hashable {
        case closed
        case open
        /// The cooldown is over and a probe is out.
        case halfOpen
    }

    /// What ``acquire(now:)`` granted: a normal call, or the one probe after a cooldown.
    public enum Permit: Sendable, Hashable {
        case call
        case probe
    }

    private enum Phase {
        case closed(consecutiveFailures: Int)
        case open(until: ContinuousClock.Instant)
        case probing
    }

    public let failureThreshold: Int
    public let cooldown: Duration
    private let phase = Mutex(Phase.closed(consecutiveFailures: 0))
    private let opens = Mutex(0)

    public init(failureThreshold: Int = 3, cooldown: Duration = .seconds(5)) {
        self.failureThreshold = max(1, failureThreshold)
        self.cooldown = cooldown
    }

    /// A permit to call, or nil when the call must be skipped (open, or a probe already out).
    public func acquire(now: ContinuousClock.Instant = .now) -> Permit? {
        phase.withLock { phase in
            switch phase {
            case .closed: return .call
            case .open(let until) where now >= until:
                phase = .probing
                return .probe
            case .open, .probing: return nil
            }
        }
    }

    /// The server answered: the breaker closes (a late answer to a call made before it opened counts too).
    public func recordSuccess() {
        phase.withLock { $0 = .closed(consecutiveFailures: 0) }
    }

    /// The call failed (timeout, connection): counts toward opening; a failed probe reopens.
    /// Returns whether this failure opened the breaker.
    @discardableResult
    public func recordFailure(_ permit: Permit, now: ContinuousClock.Instant = .now) -> Bool {
        let opened = phase.withLock { phase -> Bool in
            switch (phase, permit) {
            case (.closed(let failures), _):
                if failures + 1 >= failureThreshold {
                    phase = .open(until: now + cooldown)
                    return true
                }
                phase = .closed(consecutiveFailures: failures + 1)
                return false
            case (.probing, .probe):
                phase = .open(until: now + cooldown)
                return true
            case (.open, _), (.probing, .call):
                return false  // a call from before the breaker opened: the open phase already counts it
            }
        }
        if opened { opens.withLock { $0 += 1 } }
        return opened
    }

    /// Gives the probe back unused (the caller was cancelled before it could tell anything).
    public func release(_ permit: Permit, now: ContinuousClock.Instant = .now) {
        guard permit == .probe else { return }
        phase.withLock { phase in
            if case .probing = phase { phase = .open(until: now) }
        }
    }

    public var state: State {
        phase.withLock { phase in
            switch phase {
            case .closed: .closed
            case .open: .open
            case .probing: .halfOpen
            }
        }
    }

    /// How many times the breaker has opened.
    public var openCount: Int { opens.withLock { $0 } }
}
