import NIOCore
import NIOPosix

/// Runs Swift tasks on a NIO event loop, so work started for a request (its before hooks) runs
/// on the connection's own thread instead of hopping to the global pool and back.
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    /// The executor of the event loop the caller runs on, if it runs on one.
    static var current: EventLoopTaskExecutor? {
        MultiThreadedEventLoopGroup.currentEventLoop.map(EventLoopTaskExecutor.init)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
