import Dispatch

extension WebImageOperation {
    /// Cancels this operation from a task's cancellation handler without deadlocking it: the
    /// runtime runs the handler while it holds that task's status lock, and an operation's cancel
    /// may wait for its delivery lock — held by a thread that is, at that moment, resuming this
    /// very task, which needs the status lock (a StressTests run hung so: CombinedOperation's
    /// gate). Handed to another thread, the handler returns at once; the answer (cancelled, or
    /// the result that won the race) still reaches the task exactly once.
    func cancelFromCancellationHandler() {
        DispatchQueue.global().async { self.cancel() }
    }
}
