import Foundation
import Synchronization

/// Holds ``OriginResponse/gated(_:_:)`` responses until the test opens it, so a test can keep
/// downloads in flight for exactly as long as it needs, without sleeping.
final class OriginGate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [@Sendable () -> Void])>((false, []))

    init() {}

    /// Releases every held response and every later one.
    func open() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0() }
    }

    /// Runs `body` now when open, else when ``open()`` is called.
    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.isOpen { return true }
            state.waiters.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in whenOpen { continuation.resume() } }
    }
}
