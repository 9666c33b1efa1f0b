#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// How the kernel schedules the event-loop threads.
///
/// Under `batch` (Linux's `SCHED_BATCH`) a loop woken by new data does not preempt the thread
/// running on its core: it runs when that thread blocks or its time slice ends. Priority and
/// fairness are the same as under the default policy; only the wake-up preemption goes. When the
/// node's loops share cores with each other or with other programs, a loop then handles the
/// requests that came in meanwhile as one batch instead of taking the core for a few at a time: on
/// this project's two-core benchmark host, two loops beside the load tool blocked and woke 2–8 times
/// less often and, while the host ran at speed, published 10–40 % more; in a slow hour, as much as
/// without it (`Docs/performance.md`, sixteenth series). With one loop there is no sibling loop to
/// preempt, and it measured no better, so `automatic` leaves one loop alone. Where a loop finds an
/// idle core, nothing is preempted under either policy.
///
/// Only threads under the default policy (`SCHED_OTHER`) are moved to batch: a policy the process
/// was started with on purpose (`chrt`, systemd's `CPUSchedulingPolicy=`, a real-time or idle
/// policy) is kept. A thread that a loop's thread starts inherits the loop's policy, as Linux does
/// for every new thread. No privilege is needed to move between the default policy and batch.
/// Elsewhere than Linux with glibc the setting has no effect.
public enum LoopScheduling: String, Sendable, CaseIterable {
    /// `batch` with more than one event loop, `normal` with one.
    case automatic
    /// `SCHED_BATCH` for loops under the default policy: no wake-up preemption.
    case batch
    /// The loops keep the policy their threads were started with.
    case normal

    /// The policy in force for a group of `loops` event loops.
    public func resolved(loops: Int) -> LoopScheduling {
        guard case .automatic = self else { return self }
        return loops > 1 ? .batch : .normal
    }

    /// Sets the resolved policy on every loop of `group`, each from its own thread (the policy is
    /// a thread's). The future succeeds once every loop has run its part, or fails with a refusal.
    public func apply(to group: any EventLoopGroup) -> EventLoopFuture<Void> {
        let loops = Array(group.makeIterator())
        let policy = resolved(loops: loops.count)
        let settings = loops.map { loop in
            loop.submit { () throws -> Void in try policy.setOnCurrentThread() }
        }
        return EventLoopFuture.andAllSucceed(settings, on: group.next())
    }

    /// The policy of the calling thread: `batch`, `normal` for the default policy, nil for any
    /// other or where it cannot be read.
    public static func currentThreadPolicy() -> LoopScheduling? {
        #if canImport(Glibc)
        switch sched_getscheduler(0) & ~Self.resetOnFork {
        case Self.schedOther: return .normal
        case Self.schedBatch: return .batch
        default: return nil
        }
        #else
        return nil
        #endif
    }

    /// Linux's `SCHED_OTHER`, `SCHED_BATCH` and `SCHED_RESET_ON_FORK` (`<linux/sched.h>`; glibc
    /// declares the last two only under `_GNU_SOURCE`, which Swift's Glibc module does not import).
    private static let schedOther: Int32 = 0
    private static let schedBatch: Int32 = 3
    private static let resetOnFork: Int32 = 0x4000_0000

    /// Moves the calling thread to batch when this (resolved) policy is `batch` and the thread is
    /// under the default policy; anything else is left as it is.
    private func setOnCurrentThread() throws {
        #if canImport(Glibc)
        guard case .batch = self, Self.currentThreadPolicy() == .normal else { return }
        var parameters = sched_param()
        parameters.sched_priority = 0
        // pid 0 is the calling thread: on Linux a scheduling policy belongs to a thread.
        if sched_setscheduler(0, Self.schedBatch, &parameters) != 0 {
            throw LoopSchedulingError(policy: self, errno: errno)
        }
        #endif
    }
}

/// A loop thread's scheduling policy could not be set.
public struct LoopSchedulingError: Error, CustomStringConvertible {
    /// The policy asked for.
    public let policy: LoopScheduling
    /// The system's error number.
    public let errno: Int32

    /// The policy and the system's reason.
    public var description: String {
        #if canImport(Glibc)
        let reason = String(cString: strerror(errno))
        #else
        let reason = "errno \(errno)"
        #endif
        return "cannot set the \(policy.rawValue) scheduling policy on an event loop thread: \(reason)"
    }
}
