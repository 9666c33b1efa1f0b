/// One keyset's figures at one moment.
public struct KeysetStatistics: Sendable, Equatable {
    /// The keyset's subscribe key.
    public var subscribeKey: String
    /// Its counters since start-up.
    public var counters: KeysetCounters.Snapshot
    /// Its channels, groups and busiest channels.
    public var broker: BrokerStatistics
    /// Uuids present, summed over its channels.
    public var occupancy: Int
}

/// The node's figures at one moment: every keyset's, and the busiest channels over all of them.
public struct NodeStatistics: Sendable, Equatable {
    /// Each served keyset, in the registry's order.
    public var keysets: [KeysetStatistics]
    /// The busiest channels of all keysets, busiest first, with their subscribe keys.
    public var busiest: [(subscribeKey: String, channel: ChannelStatistics)]
    /// The node's timetoken when the figures were taken.
    public var timetoken: Timetoken

    /// The sum of every keyset's counters.
    public var totals: KeysetCounters.Snapshot {
        keysets.reduce(KeysetCounters.Snapshot()) { $0 + $1.counters }
    }

    /// Equal when every keyset, the busiest channels and the timetoken are.
    public static func == (lhs: NodeStatistics, rhs: NodeStatistics) -> Bool {
        lhs.keysets == rhs.keysets && lhs.timetoken == rhs.timetoken
            && lhs.busiest.map(\.subscribeKey) == rhs.busiest.map(\.subscribeKey)
            && lhs.busiest.map(\.channel) == rhs.busiest.map(\.channel)
    }
}

extension Node {
    /// The most busiest channels one statistics call lists.
    public static let maxBusiestChannels = 200

    /// The operator's view of the node (`GET /v1/admin/stats`), behind the admin token: every
    /// keyset's counters, channels and occupancy and the `busiest` busiest channels (0 to 200).
    public func statistics(busiest: Int, credential: String?) throws(PubNodeError) -> NodeStatistics {
        try authorizeAdmin(credential: credential)
        guard (0...Self.maxBusiestChannels).contains(busiest) else {
            throw .invalidParameter("channels must be between 0 and \(Self.maxBusiestChannels)")
        }
        return collectStatistics(busiest: busiest)
    }

    /// The figures without the busiest channels, for the metrics exporter: it serves them only on
    /// a listener its operator chose (the metrics port) or after `authorizeAdmin(credential:)`.
    public func metricsStatistics() -> NodeStatistics {
        collectStatistics(busiest: 0)
    }

    private func collectStatistics(busiest: Int) -> NodeStatistics {
        var keysets: [KeysetStatistics] = []
        var channels: [(subscribeKey: String, channel: ChannelStatistics)] = []
        for keyset in registry.all {
            var broker = keyset.broker.statistics(busiest: busiest)
            let occupied = keyset.presence.hereNow(query: OccupancyQuery(includeUUIDs: false))
            if !broker.busiest.isEmpty {
                let names = broker.busiest.map(\.name)
                let occupancy = keyset.presence.hereNow(channels: names, groups: [], query: OccupancyQuery(includeUUIDs: false))
                for index in broker.busiest.indices where index < occupancy.count {
                    broker.busiest[index].occupancy = occupancy[index].occupancy
                }
                channels += broker.busiest.map { (keyset.subscribeKey, $0) }
            }
            keysets.append(KeysetStatistics(subscribeKey: keyset.subscribeKey, counters: keyset.counters.snapshot,
                                            broker: broker, occupancy: occupied.reduce(0) { $0 + $1.occupancy }))
        }
        channels.sort { ChannelStatistics.busier($0.channel, $1.channel) }
        return NodeStatistics(keysets: keysets, busiest: Array(channels.prefix(busiest)), timetoken: clock.current())
    }
}
