import NIOCore

/// Runs a task's jobs on one event loop. A prefetch on the lean client runs its loads here: the
/// response ends on this loop, the load resumes on it without waking another thread, and the next
/// request goes out from it on a connection of its own.
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
