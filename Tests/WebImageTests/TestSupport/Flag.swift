import Synchronization

/// A flag one thread raises and another waits for.
final class Flag: Sendable {
    private let value = Mutex(false)
    func raise() { value.withLock { $0 = true } }
    func lower() { value.withLock { $0 = false } }
    var isRaised: Bool { value.withLock { $0 } }
}
