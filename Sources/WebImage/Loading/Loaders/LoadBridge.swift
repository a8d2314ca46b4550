import Synchronization

/// Turns a callback-style load — a loader's, or the manager's own operation — into an `async`
/// call whose task cancellation cancels the load, even a cancel that comes before the load started.
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
            operation?.cancelFromCancellationHandler()
        }
    }
}
