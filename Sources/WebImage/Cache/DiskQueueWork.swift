import Dispatch

/// The one way blocking disk work is awaited: in a cache's own disk queue's turn, never on the
/// awaiting thread — which may be an event loop (a prefetch on the lean client runs its loads on
/// one), and a slow disk there would stall every connection the loop serves.
extension DispatchQueue {
    /// Runs `work` (reads concurrently, or alone as a barrier) and returns its answer.
    package func diskWork<T: Sendable>(barrier: Bool = false, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            async(flags: barrier ? .barrier : []) { continuation.resume(returning: work()) }
        }
    }
}
