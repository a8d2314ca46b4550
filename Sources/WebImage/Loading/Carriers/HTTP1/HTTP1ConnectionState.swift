import NIOCore

/// One lean connection's life as a value — idle in the pool, carrying one exchange, closing,
/// closed — and its keep-alive rule: a connection carries another request only when the response
/// it ended said keep-alive, its hop was not stopped, nothing unreadable came after it, and it
/// has not been closed. An event its phase cannot take is a trap in debug builds.
struct HTTP1ConnectionState {
    enum Phase {
        /// Open with no request: `since` it went back to the pool (nil before its first request).
        case idle(since: NIODeadline?)
        /// Carrying an exchange.
        case busy(HTTP1Exchange)
        /// Closing: takes no request; an exchange still on it hears how it ends.
        case closing(HTTP1Exchange?)
        /// The channel is gone.
        case closed
    }

    /// What a request offered to the connection meets.
    enum Take {
        /// Write it on this channel.
        case send(any Channel)
        /// Closed before it went out; `reused`: it had answered before, `error`: what closed it.
        case closed(reused: Bool, error: (any Error)?)
    }

    /// What the idle timer finds when it fires.
    enum IdleCheck {
        /// Idle for the whole timeout: to be closed.
        case expired
        /// Idle, but for less than the timeout: check again after this long.
        case recheck(TimeAmount)
        /// Carrying a request, or closed: the next return to the pool arms a timer again.
        case busy
    }

    private(set) var phase = Phase.idle(since: nil)
    private(set) var channel: (any Channel)?
    /// Responses completed: a request that finds the connection closed after one may be retried.
    private(set) var served = 0
    /// What closed (or is closing) the connection.
    private(set) var error: (any Error)?
    /// An idle timer is pending: one per connection, however often it goes back to the pool.
    private var idleTimerArmed = false

    var isOpen: Bool {
        switch phase {
        case .idle, .busy: true
        case .closing, .closed: false
        }
    }

    /// The exchange the connection carries, if any (closing included).
    var exchange: HTTP1Exchange? {
        switch phase {
        case .busy(let exchange): exchange
        case .closing(let exchange): exchange
        case .idle, .closed: nil
        }
    }

    mutating func opened(_ channel: any Channel) {
        self.channel = channel
    }

    /// `exchange` asks to go out on this connection.
    mutating func take(_ exchange: HTTP1Exchange) -> Take {
        guard case .idle = phase, let channel else { return .closed(reused: served > 0, error: error) }
        phase = .busy(exchange)
        return .send(channel)
    }

    /// The exchange taken had ended before its request went out: nothing was sent.
    mutating func untaken() {
        guard case .busy = phase else { return invalid("nothing was taken") }
        phase = .idle(since: nil)
    }

    /// A response ended; `reusable`: its exchange says it may be followed by another (keep-alive,
    /// not stopped). Whether the connection goes back to the pool.
    mutating func responseEnded(reusable: Bool) -> Bool {
        served += 1
        switch phase {
        case .busy:
            guard reusable else {
                phase = .closing(nil)
                return false
            }
            phase = .idle(since: nil)
            return true
        case .closing:
            phase = .closing(nil)
            return false
        case .idle, .closed:
            return invalid("a response ended with no exchange", false)
        }
    }

    /// Back in the pool from `now`: `true` when no idle timer is pending and one must be armed.
    mutating func pooled(now: NIODeadline) -> Bool {
        guard case .idle = phase else { return false }
        phase = .idle(since: now)
        defer { idleTimerArmed = true }
        return !idleTimerArmed
    }

    /// The idle timer at `now`. Only ``IdleCheck/recheck(_:)`` leaves the timer armed.
    mutating func idleCheck(now: NIODeadline, timeout: TimeAmount) -> IdleCheck {
        guard case .idle(let since?) = phase else {
            idleTimerArmed = false
            return .busy
        }
        let idle = now - since
        guard idle < timeout else {
            idleTimerArmed = false
            return .expired
        }
        return .recheck(timeout - idle)
    }

    /// Closes the connection (`error`: why, if it failed); the channel to close.
    mutating func close(failing error: (any Error)? = nil) -> (any Channel)? {
        if let error { self.error = self.error ?? error }
        switch phase {
        case .idle: phase = .closing(nil)
        case .busy(let exchange): phase = .closing(exchange)
        case .closing, .closed: break
        }
        return channel
    }

    /// The channel failed with `error` (it is closing).
    mutating func failed(_ error: any Error) {
        self.error = self.error ?? error
    }

    /// The channel is gone: the exchange still on it, whether the connection had answered before, and why.
    mutating func inactive() -> (exchange: HTTP1Exchange?, reused: Bool, error: (any Error)?) {
        defer {
            phase = .closed
            channel = nil
        }
        return (exchange, served > 0, error)
    }

    private func invalid<T>(_ what: String, _ fallback: T) -> T {
        assertionFailure("HTTP1ConnectionState: \(what) (\(phase))")
        return fallback
    }

    private func invalid(_ what: String) {
        assertionFailure("HTTP1ConnectionState: \(what) (\(phase))")
    }
}
