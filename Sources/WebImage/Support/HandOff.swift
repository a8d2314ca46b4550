import Synchronization

/// Awaits a value another thread produces.
///
/// In ThreadSanitizer builds (`WEBIMAGE_TSAN`) the value also goes through a lock: TSan cannot
/// follow a continuation's resume to the task it wakes on Linux, but sees an unlock → lock edge.
func withHandOff<Value: Sendable>(_ start: (_ deliver: @escaping @Sendable (Value) -> Void) -> Void) async -> Value {
    #if WEBIMAGE_TSAN
    let slot = HandOffSlot<Value>()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        start { value in
            slot.value.withLock { $0 = value }
            continuation.resume()
        }
    }
    return slot.value.withLock { $0! }
    #elseif DEBUG
    await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
        start { continuation.resume(returning: $0) }
    }
    #else
    // Unchecked in release builds: every producer answers exactly once (a loader's completion
    // contract, kept by `CallbackGate`), which debug builds check; the checked form allocates per await.
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Value, Never>) in
        start { continuation.resume(returning: $0) }
    }
    #endif
}

#if WEBIMAGE_TSAN
private final class HandOffSlot<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
#endif
