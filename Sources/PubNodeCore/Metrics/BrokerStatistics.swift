/// One channel as the statistics endpoint shows it.
public struct ChannelStatistics: Sendable, Equatable {
    /// The channel's name.
    public var name: String
    /// Messages (and presence events) published on it since it was last created.
    public var publishes: Int
    /// Its recent publish rate per second (see `MessageRing.recentRate(now:window:)`).
    public var perSecond: Double
    /// Messages in its buffer.
    public var buffered: Int
    /// Long-polls parked on it directly (not through groups or wildcards).
    public var parked: Int
    /// Its newest buffered timetoken.
    public var lastTimetoken: Timetoken?
    /// Uuids present on it (filled in by the node from the presence store).
    public var occupancy: Int = 0

    /// Creates a channel's figures.
    public init(name: String, publishes: Int, perSecond: Double, buffered: Int, parked: Int,
                lastTimetoken: Timetoken?, occupancy: Int = 0) {
        self.name = name
        self.publishes = publishes
        self.perSecond = perSecond
        self.buffered = buffered
        self.parked = parked
        self.lastTimetoken = lastTimetoken
        self.occupancy = occupancy
    }

    /// Busiest first: by recent rate, then by publishes, then by name.
    static func busier(_ lhs: ChannelStatistics, _ rhs: ChannelStatistics) -> Bool {
        if lhs.perSecond != rhs.perSecond { return lhs.perSecond > rhs.perSecond }
        if lhs.publishes != rhs.publishes { return lhs.publishes > rhs.publishes }
        return lhs.name < rhs.name
    }
}

/// A keyset's channels as its broker sees them at one moment.
public struct BrokerStatistics: Sendable, Equatable {
    /// Channels with state (buffered messages, subscribers or group membership).
    public var channels: Int
    /// Channel groups with members.
    public var groups: Int
    /// The busiest channels, busiest first.
    public var busiest: [ChannelStatistics]

    /// Creates a keyset's figures.
    public init(channels: Int, groups: Int, busiest: [ChannelStatistics]) {
        self.channels = channels
        self.groups = groups
        self.busiest = busiest
    }
}
