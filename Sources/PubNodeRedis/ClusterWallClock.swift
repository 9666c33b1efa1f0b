import PubNodeCore
import Synchronization

/// The wall clock of a cluster member: this machine's clock moved by the offset to Redis's
/// `TIME`, measured at each connection, so a handshake's cursor is on the same time line as the
/// timetokens Redis issues even when machines' clocks disagree.
public final class ClusterWallClock: WallClock {
    private let base: any WallClock
    private let offset = Atomic<Int64>(0)

    /// Reads `base`, moved by the offset last measured.
    public init(base: any WallClock) {
        self.base = base
    }

    /// Nanoseconds since the Unix epoch on Redis's time line.
    public func nowNanoseconds() -> UInt64 {
        let now = Int64(clamping: base.nowNanoseconds()) &+ offset.load(ordering: .relaxed)
        return UInt64(max(now, 0))
    }

    /// Records Redis's time (`redisNanoseconds`), read before `base` said `localNanoseconds`.
    ///
    /// The offset errs low (by the probe's round trip, plus `margin`): this clock never runs ahead
    /// of Redis's, so a handshake's cursor is never after a timetoken Redis issues later.
    public func measured(redisNanoseconds: UInt64, localNanoseconds: UInt64, margin: UInt64 = 1_000_000) {
        offset.store(Int64(clamping: redisNanoseconds) &- Int64(clamping: localNanoseconds) &- Int64(clamping: margin),
                     ordering: .relaxed)
    }

    /// This machine's own clock.
    public func localNanoseconds() -> UInt64 { base.nowNanoseconds() }
}
