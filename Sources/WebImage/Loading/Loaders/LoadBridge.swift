import Dispatch
import Synchronization

/// Turns a callback-style loader's load into an `async` call whose task cancellation cancels the
/// load, even a cancel that comes before the load started — the edge where a loader written only
/// with callbacks meets an awaiting caller (WebImage's own loaders answer awaiting callers directly).
enum LoadBridge {
    private struct State {
        var operation: (any WebImageOperation)?
        var isCancelled = false
    }

    static func run<Value: Sendable>(
        _ start: (_ deliver: @escaping @Sendable (Value) -> Void) -> any WebImageOperation
    ) async -> Value {
        let state = Mutex(State())
        return await withTaskCancellationHandler {
            await withHandOff { deliver in
                let operation = start(deliver)
                // A cancel that raced ahead of `start` returning is applied here.
                let cancelNow = state.withLock { state in
                    state.operation = operation
                    return state.isCancelled
                }
                if cancelNow { operation.cancel() }
            }
        } onCancel: {
            let operation = state.withLock { state in
                state.isCancelled = true
                return state.operation
            }
            // Not here: the runtime runs this handler under the task's status lock, and the
            // loader's cancel may wait for a delivery in flight that is resuming this very task.
            if let operation { DispatchQueue.global().async { operation.cancel() } }
        }
    }
}
