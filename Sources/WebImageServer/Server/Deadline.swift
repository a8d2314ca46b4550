import WebImage

/// `work`'s value, or `late()` once `limit` has passed — whichever comes first. The caller stops
/// waiting at the deadline even when `work` does not notice cancellation (it may be waiting for
/// work other requests share); `work` is cancelled then and goes on only where it is shared.
func withDeadline<Value: Sendable>(
    _ limit: Duration, late: @escaping @Sendable () -> Value, _ work: @escaping @Sendable () async -> Value
) async -> Value {
    // Cut short (work answered, or the caller went away), the timer answers at once: the race
    // always ends, even when `work` never notices its cancellation.
    let timer: @Sendable () async -> Value? = {
        try? await Task.sleep(for: limit)
        return late()
    }
    return await race([{ await work() }, timer], cancellingLosers: true)!
}
