import Synchronization

/// One uuid's presence in a keyset: the channels it is on, when each expires, and its state.
///
/// Guarded by its own mutex. Lock order: a user's mutex is always taken before any channel's
/// `ChannelPresence` mutex, never after, so the two sides change together without deadlock.
final class UserPresence: Sendable {
    /// The uuid's standing on one channel.
    struct Entry: Sendable, Equatable {
        /// True while the uuid counts in the channel's occupancy. False for an entry that only
        /// holds state set on a channel the uuid is not on (kept until it expires or the uuid joins).
        var present: Bool
        /// Wall time (ns) after which the entry times out.
        var expiresAt: UInt64
        /// The presence timeout in force, in seconds.
        var timeoutSeconds: Int
        /// The state object's JSON text, if any.
        var state: [UInt8]?
    }

    struct Inner {
        var entries: [String: Entry] = [:]
        /// A lower bound on every entry's `expiresAt`: the sweeper skips the user until then.
        var nextExpiry: UInt64 = .max
        /// Set when the user leaves the map; holders of a stale reference retry.
        var reclaimed = false
    }

    let uuid: String
    let inner = Mutex(Inner())

    init(uuid: String) { self.uuid = uuid }
}
