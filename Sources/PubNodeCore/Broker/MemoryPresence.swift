//// The single-node presence store: each keyset's `PresenceTracker`, inside its `ChannelHub` (kept by
/// `MemoryHubs`, shared with `MemoryBroker`).
public final class MemoryPresence: PresenceManager {
    /// The hubs, shared with the broker.
    public let hubs: MemoryHubs

    /// Serves the presence of the keysets of `hubs`.
    public init(hubs: MemoryHubs) {
        self.hubs = hubs
    }

    /// The presence of `subscribeKey`, if open.
    public func keyset(_ subscribeKey: String) -> (any KeysetPresence)? { hubs.hub(subscribeKey).map(MemoryKeysetPresence.init) }

    /// Opens `keyset`'s presence (its hub is made on first use).
    public func open(_ keyset: Keyset) -> any KeysetPresence { MemoryKeysetPresence(hub: hubs.open(keyset)) }

    /// Drops `subscribeKey`'s presence (with its hub).
    public func close(_ subscribeKey: String) { hubs.close(subscribeKey) }

    /// Every open keyset.
    public var allKeysets: [any KeysetPresence] { hubs.all.map(MemoryKeysetPresence.init) }
}

struct MemoryKeysetPresence: KeysetPresence {
    let hub: ChannelHub

    var settings: PresenceSettings { hub.presenceSettings }

    func heartbeat(_ update: PresenceUpdate) throws(PubNodeError) {
        try hub.heartbeat(update).wakeAll()
    }

    func refresh(_ update: PresenceUpdate, receipt: inout PresenceReceipt?) throws(PubNodeError) {
        let woken = try hub.refresh(update, receipt: &receipt)
        if !woken.isEmpty { woken.wakeAll() }
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
