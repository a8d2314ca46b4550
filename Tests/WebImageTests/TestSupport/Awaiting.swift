import Foundation

/// Polls `condition` every 2 ms until it holds or `timeout` (stretched by ``TestTiming/scale``)
/// passes; returns whether it held. The timeout is only a safety net, so it is long: the suite's
/// synchronous CPU-heavy specs can hold both of Swift concurrency's threads on two cores for a minute.
@discardableResult
func eventually(timeout: Duration = .seconds(90), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout * TestTiming.scale
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Runs blocking `work` (waiting for a child process, reading a pipe to its end) on a thread of its
/// own. Not on Swift concurrency's threads, which every running test shares, and not on GCD's
/// global queue either: on Linux that queue adds a thread for blocked ones only every few seconds
/// (a job queued behind 8 blocked ones waited 5.5 s), and the library answers loads through it —
/// CLI specs blocking it once starved every load in the suite for 20 s and failed three prefetcher specs.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
