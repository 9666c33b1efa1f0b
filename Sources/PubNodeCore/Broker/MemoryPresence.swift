/// Presence kept in this process: each keyset's `PresenceTracker`, reached through its hub, whose
/// events are published on the hub's `-pnpres` channels.
public final class MemoryPresence: PresenceManager {
    private let keysets: [String: MemoryKeysetPresence]

    /// Serves the presence trackers of `hubs`.
    public init(hubs: [ChannelHub]) {
        var keysets: [String: MemoryKeysetPresence] = [:]
        for hub in hubs where keysets[hub.subscribeKey] == nil {
            keysets[hub.subscribeKey] = MemoryKeysetPresence(hub: hub)
        }
        self.keysets = keysets
    }

    /// The presence of `subscribeKey`.
    public func keyset(_ subscribeKey: String) -> (any KeysetPresence)? { keysets[subscribeKey] }

    /// Every keyset.
    public var allKeysets: [any KeysetPresence] { Array(keysets.values) }
}

/// One keyset's presence in memory; wakes the subscribers of the events a change emits.
struct MemoryKeysetPresence: KeysetPresence {
    let hub: ChannelHub

    var settings: PresenceSettings { hub.presenceSettings }

    func heartbeat(_ update: PresenceUpdate) throws(PubNodeError) {
        try hub.heartbeat(update).wakeAll()
    }

    func leave(uuid: String, channels: [String], groups: [String]) {
        hub.leave(uuid: uuid, channels: channels, groups: groups).wakeAll()
    }

    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8]) throws(PubNodeError) -> [UInt8]? {
        let result = try hub.setState(uuid: uuid, channels: channels, groups: groups, state: state)
        result.waiters.wakeAll()
        return result.state
    }

    func state(of uuid: String, channels: [String], groups: [String]) -> [(channel: String, state: [UInt8]?)] {
        hub.state(of: uuid, channels: channels, groups: groups)
    }

    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) -> [ChannelOccupancy] {
        hub.hereNow(channels: channels, groups: groups, query: query)
    }

    func hereNow(query: OccupancyQuery) -> [ChannelOccupancy] { hub.hereNow(query: query) }

    func whereNow(uuid: String) -> [String] { hub.whereNow(uuid: uuid) }

    func sweep() -> PresenceSweepCounts {
        let report = hub.sweepPresence()
        report.waiters.wakeAll()
        return report.counts
    }
}

extension PresenceTracker.SweepCounts {
    /// Adds another keyset's figures.
    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.timedOut += rhs.timedOut
        sum.intervals += rhs.intervals
        sum.expiredStates += rhs.expiredStates
        return sum
    }
}
