import Foundation
import Testing
import WebImage

/// Runs each test's body on threads of the suite's own rather than Swift concurrency's shared
/// pool (as wide as the cores: two here). A synchronous CPU-heavy spec there holds a pool thread for
/// seconds, and every other spec's tasks — a server's bind, a Redis start-up wait — wait behind it.
struct OwnThreadsTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        #if WEBIMAGE_TSAN
        // ThreadSanitizer builds keep the shared pool: their work queue parks GCD threads of its own.
        try await function()
        #else
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(OwnThreadExecutor.shared) { try await function() }
        #endif
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// The test (or every test of the suite) runs on threads of its own: for CPU-heavy specs.
    static var onOwnThreads: Self { Self() }
}

/// A task executor with threads of its own, as many as the cores: CPU-heavy specs take turns on
/// them, beside (not instead of) the shared pool the other specs' tasks run on.
final class OwnThreadExecutor: TaskExecutor, Sendable {
    static let shared = OwnThreadExecutor()
    private let threads = ImageWorkQueue(label: "WebImageTests.ownThreads")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        threads.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
