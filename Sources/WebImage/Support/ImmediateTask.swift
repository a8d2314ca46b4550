/// A task that starts on the calling thread and runs there until its first suspension (Swift
/// 6.2's `Task.immediate`), instead of being queued for another thread of the pool. A load's
/// first steps (keys, blocklist, cache lookup, queueing its download) are short, not worth a
/// thread wake-up per load. Only for callers already waiting for the task's answer — the task's
/// synchronous part may answer before this returns. Inside a prefetch that runs on an event
/// loop (``PreferredExecutor``) the task resumes there too.
@discardableResult
func immediateTask(_ work: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    #if compiler(>=6.2)
    Task.immediate(executorPreference: PreferredExecutor.current, operation: work)
    #else
    Task(executorPreference: PreferredExecutor.current, operation: work)
    #endif
}
