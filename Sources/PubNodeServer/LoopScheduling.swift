#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// How the kernel schedules the event-loop threads.
///
/// Under `batch` (Linux's `SCHED_BATCH`) a loop woken by new data does not preempt the thread
/// running on its core: it runs when that thread blocks or its time slice ends. Priority and
/// fairness are the same as under `normal`; only the wake-up preemption goes. When the node's loops
/// share cores with each other or with other programs, a loop then handles the requests that came
/// in meanwhile as one batch instead of taking the core for a few at a time: on this project's
/// two-core benchmark host, two loops beside the load tool blocked and woke 2–8 times less often
/// and published 10–30 % more (`Docs/performance.md`, sixteenth series). With one loop there is no
/// sibling loop to preempt, and it measured no better, so `automatic` keeps `normal` there.
///
/// Changing between these two policies needs no privilege. Elsewhere than Linux the setting has no
/// effect.
public enum LoopScheduling: String, Sendable, CaseIterable {
    /// `batch` with more than one event loop, `normal` with one.
    case automatic
    /// `SCHED_BATCH`: no wake-up preemption.
    case batch
    /// The system's default policy (`SCHED_OTHER`).
    case normal

    /// The policy in force for a group of `loops` event loops.
    public func resolved(loops: Int) -> LoopScheduling {
        guard case .automatic = self else { return self }
        return loops > 1 ? .batch : .normal
    }

    /// Sets the resolved policy on every loop of `loops`, each from its own thread (the policy is
    /// a thread's). The future succeeds once all are set, or fails with the first refusal.
    public func apply(to loops: [any EventLoop]) -> EventLoopFuture<Void> {
        let policy = resolved(loops: loops.count)
        let settings = loops.map { loop in
            loop.submit { () throws -> Void in try policy.setOnCurrentThread() }
        }
        return EventLoopFuture.andAllSucceed(settings, on: loops[0])
    }

    /// The policy of the calling thread, nil where it cannot be read (or is neither of these).
    public static func currentThreadPolicy() -> LoopScheduling? {
        #if os(Linux)
        switch sched_getscheduler(0) {
        case Self.schedOther: return .normal
        case Self.schedBatch: return .batch
        default: return nil
        }
        #else
        return nil
        #endif
    }

    /// Linux's `SCHED_OTHER` and `SCHED_BATCH` (`<linux/sched.h>`; the C library declares the
    /// second only under `_GNU_SOURCE`, which Swift's Glibc module does not import).
    private static let schedOther: Int32 = 0
    private static let schedBatch: Int32 = 3

    /// Sets this (resolved) policy on the calling thread.
    private func setOnCurrentThread() throws {
        #if os(Linux)
        var parameters = sched_param()
        parameters.sched_priority = 0
        let policy = self == .batch ? Self.schedBatch : Self.schedOther
        // pid 0 is the calling thread: on Linux a scheduling policy belongs to a thread.
        if sched_setscheduler(0, policy, &parameters) != 0 {
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
        "cannot set the \(policy.rawValue) scheduling policy on an event loop thread (errno \(errno))"
    }
}
