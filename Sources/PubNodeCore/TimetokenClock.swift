#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A source of wall-clock time, injectable so time-dependent logic is testable without sleeping.
public protocol WallClock: Sendable {
    /// Nanoseconds since the Unix epoch.
    func nowNanoseconds() -> UInt64
}

/// The operating system's real-time clock.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// Reads `CLOCK_REALTIME`.
    public func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// Issues strictly increasing timetokens across the whole node.
///
/// Each issued value is `max(wall time / 100 ns, previous + 1)`, so values stay unique when many
/// publishes fall within the same 100 ns and keep increasing when the wall clock steps back.
/// Lock-free: one atomic compare-and-exchange per call.
public final class TimetokenClock: Sendable {
    private let wall: any WallClock
    private let last = Atomic<UInt64>(0)

    /// Creates a clock reading the given wall clock.
    public init(wall: any WallClock = SystemWallClock()) {
        self.wall = wall
    }

    /// Issues a new timetoken, greater than every one issued or reported by `current()` before.
    public func next() -> Timetoken {
        let now = wall.nowNanoseconds() / 100
        var previous = last.load(ordering: .relaxed)
        while true {
            let candidate = max(now, previous &+ 1)
            let (exchanged, original) = last.compareExchange(
                expected: previous, desired: candidate, ordering: .acquiringAndReleasing)
            if exchanged { return Timetoken(candidate) }
            previous = original
        }
    }

    /// The present timetoken, without issuing one: every later `next()` is strictly greater.
    public func current() -> Timetoken {
        advance(to: wall.nowNanoseconds() / 100)
    }

    /// Raises the floor so no later timetoken is at or below `floor` (used when restoring stored messages).
    @discardableResult
    public func advance(to floor: UInt64) -> Timetoken {
        var previous = last.load(ordering: .relaxed)
        while previous < floor {
            let (exchanged, original) = last.compareExchange(
                expected: previous, desired: floor, ordering: .acquiringAndReleasing)
            if exchanged { return Timetoken(floor) }
            previous = original
        }
        return Timetoken(previous)
    }

    /// Wall time in nanoseconds, from the injected clock.
    public func nowNanoseconds() -> UInt64 { wall.nowNanoseconds() }
}

/// The timetoken clock reads the wall clock it was given (rate limiters and token expiry use it,
/// so tests drive them with the same manual clock).
extension TimetokenClock: WallClock {}
