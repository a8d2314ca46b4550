import Synchronization

/// Awaits a value another thread produces.
///
/// In ThreadSanitizer builds (`WEBIMAGE_TSAN`) the value goes through a lock rather than through
/// the continuation alone: TSan cannot follow a continuation's resume to the task it wakes on Linux
/// (the runtime enqueues the task with a libdispatch call TSan does not intercept), so an Image
/// made on a decoding thread and read by the awaiting task would look like a race to it. The
/// producer's unlock and the awaiter's lock are an edge it sees. Other builds need no such edge:
/// the resume orders the write before the read.
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
