/// Who is present where: the seam between a node and its presence store (centrifuge's
/// `PresenceManager`).
///
/// `MemoryPresence` keeps presence in this process; a clustered store (Redis) implements the same
/// requirements so that every node lists the users of every node and each change is announced
/// once. Presence events are published on `<channel>-pnpres` through the broker.
public protocol PresenceManager: Sendable {
    /// The presence of one subscribe key, or nil when the key is not configured.
    func keyset(_ subscribeKey: String) -> (any KeysetPresence)?
    /// Opens the presence of `keyset`, configured at start or created at run time (idempotent).
    func open(_ keyset: Keyset) -> any KeysetPresence
    /// Drops everything of `subscribeKey` (its keyset is deleted); parked polls are woken.
    func close(_ subscribeKey: String)
    /// Every configured keyset, for sweeping.
    var allKeysets: [any KeysetPresence] { get }
}

/// Presence of one subscribe key. Events go out on `-pnpres` channels; their subscribers are woken
/// by the store itself.
public protocol KeysetPresence: Sendable {
    /// The presence rules of this keyset.
    var settings: PresenceSettings { get }

    /// Refreshes (or starts) a uuid's presence on channels and the channels of groups, applying
    /// the state given; a refused state changes nothing.
    func heartbeat(_ update: PresenceUpdate) throws(PubNodeError)
    /// A subscribe's repeated refresh: like `heartbeat(_:)`, but it may skip one that `receipt`
    /// (left by the last call with the same update) shows would change nothing. Leaves in
    /// `receipt` what the next call is to pass, nil when this presence never skips.
    func refresh(_ update: PresenceUpdate, receipt: inout PresenceReceipt?) throws(PubNodeError)
    /// Removes a uuid from channels and the channels of groups at once.
    func leave(uuid: String, channels: [String], groups: [String])
    /// Sets a uuid's state on channels and the channels of groups; returns it as stored (nil for `{}`).
    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8]) throws(PubNodeError) -> [UInt8]?
    /// A uuid's state on the channels named and, where it has one, on the channels of groups.
    func state(of uuid: String, channels: [String], groups: [String]) -> [(channel: String, state: [UInt8]?)]
    /// Occupancy of channels and of the channels of groups.
    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) -> [ChannelOccupancy]
    /// Occupancy of every occupied channel.
    func hereNow(query: OccupancyQuery) -> [ChannelOccupancy]
    /// The channels a uuid is present on.
    func whereNow(uuid: String) -> [String]
    /// Times out expired uuids and emits due interval events.
    func sweep() -> PresenceSweepCounts
    /// Presence kept outside this process, or nil when the methods above are the presence.
    var shared: (any SharedPresence)? { get }
}

/// What one presence sweep did.
public typealias PresenceSweepCounts = PresenceTracker.SweepCounts

extension KeysetPresence {
    /// Presence is kept in this process unless the store says otherwise.
    public var shared: (any SharedPresence)? { nil }

    /// Every refresh is made: a store whose removals this process cannot see skips none.
    public func refresh(_ update: PresenceUpdate, receipt: inout PresenceReceipt?) throws(PubNodeError) {
        try heartbeat(update)
        receipt = nil
    }
}

/// Presence kept outside the process (a cluster's, in Redis): every node lists the users of every
/// node. A `KeysetPresence` that has one (`shared`) is asked its queries and state changes
/// through it; heartbeats and leaves still go through `KeysetPresence`, without waiting.
public protocol SharedPresence: Sendable {
    /// Sets a uuid's state on channels and the channels of groups; returns it as stored (nil for `{}`).
    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8]) async throws(PubNodeError) -> [UInt8]?
    /// A uuid's state on the channels named and, where it has one, on the channels of groups.
    func state(of uuid: String, channels: [String], groups: [String]) async throws(PubNodeError) -> [(channel: String, state: [UInt8]?)]
    /// Occupancy of channels and of the channels of groups.
    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) async throws(PubNodeError) -> [ChannelOccupancy]
    /// Occupancy of every occupied channel.
    func hereNow(query: OccupancyQuery) async throws(PubNodeError) -> [ChannelOccupancy]
    /// The channels a uuid is present on.
    func whereNow(uuid: String) async throws(PubNodeError) -> [String]
}
