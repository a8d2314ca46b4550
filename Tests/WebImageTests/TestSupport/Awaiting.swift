import Foundation

/// Polls `condition` every 2 ms until it holds or `timeout` (stretched by ``TestTiming/scale``)
/// passes; returns whether it held. The timeout is generous: the whole suite shares two cores, and
/// CPU-heavy tests — ten times slower under ThreadSanitizer — can hold both for many seconds.
@discardableResult
func eventually(timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout * TestTiming.scale
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
