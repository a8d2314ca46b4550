import NIOCore

/// Runs a task's jobs on one event loop. A prefetch on the lean client runs its loads here: the
/// response ends on this loop, the load resumes on it without waking another thread, and the next
/// request goes out from it on the connection the pool keeps on this loop.
///
/// The async functions a prefetched image passes through (the prefetcher's worker, the manager's
/// warm-cache path, the disk write) are `nonisolated(nonsending)`, so they run on this loop: a
/// plain nonisolated one hops to the generic executor, a locked preferred-executor lookup each time.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
