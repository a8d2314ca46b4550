import Synchronization

/// A task's cancellation, readable from the decoding and processing queues' own threads (where
/// `Task.isCancelled` sees no task): raised by the task's cancellation handler.
final class WorkCancellation: Sendable {
    private let raised = Atomic(false)

    var isRaised: Bool { raised.load(ordering: .relaxed) }

    /// Throws `CancellationError` once raised: the work stops at the next stage.
    func check() throws {
        if isRaised { throw CancellationError() }
    }

    /// `work` with this flag raised when the calling task is cancelled.
    func run<T: Sendable>(_ work: () async -> T) async -> T {
        await withTaskCancellationHandler { await work() } onCancel: { raised.store(true, ordering: .relaxed) }
    }
}
