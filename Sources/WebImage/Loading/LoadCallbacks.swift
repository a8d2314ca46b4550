import Synchronization

/// One caller's progress and completion, with the exactly-once rule built in: after the
/// completion (or the cancellation) nothing more is delivered.
///
/// Callers deliver through one serial queue per load, so "no progress after completion" also
/// holds for a progress value that was already on its way.
final class LoadCallbacks: Sendable {
    private let progress: ImageLoaderProgressHandler?
    private let completion: Mutex<ImageLoaderCompletion?>

    init(progress: ImageLoaderProgressHandler?, completion: @escaping ImageLoaderCompletion) {
        self.progress = progress
        self.completion = Mutex(completion)
    }

    var isCompleted: Bool { completion.withLock { $0 == nil } }
    var wantsProgress: Bool { progress != nil }

    func deliverProgress(_ value: ImageLoaderProgress) {
        guard let progress, !isCompleted else { return }
        progress(value)
    }

    /// Calls the completion unless it was already called. Returns whether it was.
    @discardableResult
    func complete(_ result: Result<ImageLoaderResult, WebImageError>) -> Bool {
        guard let completion = completion.withLock({ $0.take() }) else { return false }
        completion(result)
        return true
    }
}
