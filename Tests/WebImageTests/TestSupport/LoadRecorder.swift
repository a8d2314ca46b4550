import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Records one caller's callbacks and lets a test await them: every progress value, every
/// completion (a second one is a bug the tests look for), and when each arrived.
final class LoadRecorder: Sendable {
    private struct State {
        var progress: [ImageLoaderProgress] = []
        var completions: [Result<ImageLoaderResult, WebImageError>] = []
        var progressAfterCompletion = 0
    }

    private let state = Mutex(State())
    /// Runs inside each completion, for tests that chain work off it.
    private let onComplete: (@Sendable (Result<ImageLoaderResult, WebImageError>) -> Void)?

    init(onComplete: (@Sendable (Result<ImageLoaderResult, WebImageError>) -> Void)? = nil) {
        self.onComplete = onComplete
    }

    var progress: ImageLoaderProgressHandler {
        { [self] value in
            state.withLock { state in
                if !state.completions.isEmpty { state.progressAfterCompletion += 1 }
                state.progress.append(value)
            }
        }
    }

    var completion: ImageLoaderCompletion {
        { [self] result in
            state.withLock { $0.completions.append(result) }
            onComplete?(result)
        }
    }

    var progressValues: [ImageLoaderProgress] { state.withLock { $0.progress } }
    var completionCount: Int { state.withLock { $0.completions.count } }
    var firstCompletion: Result<ImageLoaderResult, WebImageError>? { state.withLock { $0.completions.first } }
    var progressAfterCompletion: Int { state.withLock { $0.progressAfterCompletion } }

    /// The first completion, waiting up to `timeout`; `nil` (and a recorded issue) when none came.
    func result(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async
        -> Result<ImageLoaderResult, WebImageError>?
    {
        await waitForCompletion(timeout: timeout)
        guard let first = state.withLock({ $0.completions.first }) else {
            Issue.record("no completion within \(timeout * TestTiming.scale)", sourceLocation: sourceLocation)
            return nil
        }
        return first
    }

    /// The error of the first completion (a recorded issue when it succeeded or never came).
    func error(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async -> WebImageError? {
        switch await result(timeout: timeout, sourceLocation: sourceLocation) {
        case .failure(let error): return error
        case .success: Issue.record("expected a failure, got an image", sourceLocation: sourceLocation); return nil
        case nil: return nil
        }
    }

    /// The result of the first completion (a recorded issue when it failed or never came).
    func value(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async -> ImageLoaderResult? {
        switch await result(timeout: timeout, sourceLocation: sourceLocation) {
        case .success(let value): return value
        case .failure(let error): Issue.record("expected an image, got \(error)", sourceLocation: sourceLocation); return nil
        case nil: return nil
        }
    }

    /// Waits until a completion arrived or `timeout` (stretched with the run's time scale) passed
    /// (polls: simple, and 2 ms is far below anything the tests measure). The limit only keeps a
    /// lost completion from hanging the suite: an unscaled 10 s ran out under ThreadSanitizer for
    /// a load of the queue-priority spec (five loads through one slot).
    func waitForCompletion(timeout: Duration = .seconds(30)) async {
        let deadline = ContinuousClock.now + timeout * TestTiming.scale
        while completionCount == 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits `duration` and returns the completion count then: for "nothing more arrives" checks.
    func completionCount(after duration: Duration) async -> Int {
        try? await Task.sleep(for: duration)
        return completionCount
    }
}
