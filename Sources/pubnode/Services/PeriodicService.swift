import PubNodeCore
import ServiceLifecycle

/// Periodic work as a service: sleeps `interval` on the injected `NodeClock`, runs the work, and
/// again, until the group shuts down.
///
/// Ticks never overlap: the next sleep starts only once the work has returned, so a sweep still
/// running when its next tick would come is not started twice. The work runs on the task's
/// executor (Swift's global pool), never on an NIO event loop. On graceful shutdown the loop is
/// cancelled: work in progress finishes, the sleep ends at once and `run()` returns, so the group
/// moves on to the next service only when no tick is running.
struct PeriodicService: Service, CustomStringConvertible {
    /// Name in logs and in the group's errors.
    let name: String
    /// Time between the end of one run and the start of the next.
    let interval: Duration
    /// The clock slept on.
    let clock: any NodeClock
    /// One tick's work.
    let work: @Sendable () async -> Void

    /// Creates a service running `work` every `interval` of `clock`.
    init(_ name: String, every interval: Duration, clock: any NodeClock, work: @escaping @Sendable () async -> Void) {
        self.name = name
        self.interval = interval
        self.clock = clock
        self.work = work
    }

    /// The name.
    var description: String { name }

    /// Ticks until graceful shutdown or cancellation.
    func run() async throws {
        await cancelWhenGracefulShutdown { [clock, interval, work] in
            while true {
                do { try await clock.sleep(for: interval) } catch { return }
                await work()
            }
        }
    }
}
