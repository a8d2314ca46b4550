import Foundation
import Synchronization
@testable import WebImage

/// One caller of a stress run: how it asked, whether it cancelled, and every answer it got.
final class StressCall: Sendable {
    private struct State {
        var answers: [Result<ImageResult, WebImageError>] = []
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    /// Records an answer and wakes ``firstAnswer()``.
    func answer(_ result: Result<ImageResult, WebImageError>) {
        let waiter = state.withLock { state in
            state.answers.append(result)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func markCancelled() { state.withLock { $0.cancelled = true } }

    /// Returns once the call has at least one answer.
    func firstAnswer() async {
        await withCheckedContinuation { continuation in
            let answered = state.withLock { state in
                if !state.answers.isEmpty { return true }
                state.waiter = continuation
                return false
            }
            if answered { continuation.resume() }
        }
    }

    var answers: [Result<ImageResult, WebImageError>] { state.withLock { $0.answers } }
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    /// What is wrong with this call's answers, or `nil`: exactly one answer; a caller that did not
    /// cancel got its image (the origin is healthy); `cancelled` only for a caller that cancelled.
    var violation: String? {
        let (answers, cancelled) = state.withLock { ($0.answers, $0.cancelled) }
        guard answers.count == 1 else { return "answered \(answers.count) times" }
        switch answers[0] {
        case .success: return nil
        case .failure(.cancelled): return cancelled ? nil : "cancelled without cancelling"
        case .failure(let error): return "failed: \(error)"
        }
    }
}
