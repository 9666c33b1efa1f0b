import Synchronization

/// One channel's occupants, and its announce-max bookkeeping.
///
/// Guarded by its own mutex, always taken after (never before) the mutex of a `UserPresence`.
final class ChannelPresence: Sendable {
    struct Inner {
        var occupants: Set<String> = []
        /// True while the channel publishes `interval` events instead of per-uuid ones.
        var announcing = false
        /// Wall time (ns) of the next `interval` event.
        var nextIntervalAt: UInt64 = 0
        /// Deltas since the last `interval` event.
        var joined: Set<String> = []
        var left: Set<String> = []
        var timedOut: Set<String> = []
        /// Set when the channel leaves the map; holders of a stale reference retry.
        var reclaimed = false
    }

    let name: String
    let inner = Mutex(Inner())

    init(name: String) { self.name = name }
}
