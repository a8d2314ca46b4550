import Synchronization

/// Awaits a value another thread produces, handing it over through a lock rather than through the
/// continuation alone. Production gains nothing from the lock (one uncontended acquire); it is for
/// ThreadSanitizer, which cannot follow a continuation's resume to the task it wakes on Linux (the
/// runtime enqueues the task with a libdispatch call TSan does not intercept), so an Image made on
/// a decoding thread and read by the awaiting task looks like a race to it. The producer's unlock
/// and the awaiter's lock are an edge it sees.
func withHandOff<Value: Sendable>(_ start: (_ deliver: @escaping @Sendable (Value) -> Void) -> Void) async -> Value {
    let slot = HandOffSlot<Value>()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        start { value in
            slot.value.withLock { $0 = value }
            continuation.resume()
        }
    }
    return slot.value.withLock { $0! }
}

private final class HandOffSlot<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
