import Synchronization

/// One concrete channel of a keyset: its ring buffer, its parked waiters and the groups holding it.
///
/// Every field is guarded by the channel's own mutex; a publish locks only its channel. Opaque
/// outside the core: a long-poll keeps its channel's state (`KeysetBroker.channelState(for:)`) to
/// park there on every poll without looking the channel up.
public final class ChannelState: Sendable {
    struct Inner {
        var ring: MessageRing
        var waiters = WaiterSet()
        var groups: Set<String> = []
        var lastActivityNanoseconds: UInt64
        /// Messages published since the channel's state was created (for statistics).
        var published = 0
        /// Set by the sweeper when the channel leaves the map; holders of a stale reference retry.
        var reclaimed = false
        /// The fan-in states of the channel's wildcard patterns (`NameRules.wildcardPatterns`),
        /// set once the channel is listed as a member of every one (`ChannelHub.channelState`); nil
        /// until then. A prefix is reclaimed only when it has no members, and a channel leaves its
        /// prefixes only after it is itself reclaimed, so these stay live as long as the channel
        /// does: a publish wakes their waiters through them, without building the patterns,
        /// looking them up or listing the channel again (a stale one is still checked for). Kept
        /// under the channel's lock, which a publish takes anyway, rather than in an atomic
        /// reference of its own.
        var listedUnder: ListedPrefixes?
    }

    let name: String
    /// The `ChannelHub.serial` of the hub the state belongs to: a state kept by a holder is used
    /// only by that hub (`ChannelHub.owns(_:)`), never by another keyset's.
    let hubSerial: UInt64
    let inner: Mutex<Inner>
    /// `Inner.reclaimed`, readable without the lock: set once, under it, by `reclaim(_:)`.
    private let left = Atomic<Bool>(false)

    init(name: String, hubSerial: UInt64, capacity: Int, now: UInt64) {
        self.name = name
        self.hubSerial = hubSerial
        self.inner = Mutex(Inner(ring: MessageRing(capacity: capacity), lastActivityNanoseconds: now))
    }

    /// Whether the state has left its hub (swept or closed): a holder keeping it across polls
    /// takes the channel's live state instead. Read without the lock, so a state reclaimed a moment
    /// ago may still read false; parking through it checks `Inner.reclaimed` under the lock.
    var isReclaimed: Bool { left.load(ordering: .acquiring) }

    /// Marks the state reclaimed, with `inner` (its own, locked, its waiters already taken or
    /// none) passed in, and gives back its waiter table: a holder that still keeps the state parks
    /// nothing here any more.
    func reclaim(_ inner: inout Inner) {
        inner.reclaimed = true
        inner.waiters = WaiterSet()
        left.store(true, ordering: .releasing)
    }
}

/// The wildcard prefixes a channel is listed under, in the order of its patterns.
final class ListedPrefixes: Sendable {
    /// A channel matched by no wildcard pattern.
    static let none = ListedPrefixes([])

    let states: [FanInState]

    init(_ states: [FanInState]) {
        self.states = states
    }
}

/// A channel group or a wildcard prefix: a set of member channels and the waiters parked on it.
final class FanInState: Sendable {
    struct Inner {
        var members: Set<String> = []
        var waiters = WaiterSet()
        var reclaimed = false
    }

    let name: String
    let inner: Mutex<Inner>

    init(name: String) {
        self.name = name
        self.inner = Mutex(Inner())
    }

    /// Removes and appends this topic's waiters to `out`.
    func takeWaiters(into out: inout [any Waiter]) {
        inner.withLock { $0.waiters.takeAll(into: &out) }
    }

    /// A snapshot of the member channels.
    func members() -> Set<String> {
        inner.withLock { $0.members }
    }
}
