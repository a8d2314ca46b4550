import Synchronization

/// Turns a callback-style load into an `async` call whose task cancellation cancels the load.
enum LoadBridge {
    private struct State {
        var operation: (any WebImageOperation)?
        var isCancelled = false
    }

    static func run(
        _ start: (@escaping ImageLoaderCompletion) -> any WebImageOperation
    ) async -> Result<ImageLoaderResult, WebImageError> {
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
