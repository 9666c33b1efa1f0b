/// Who is on one channel, as here-now reports it.
public struct ChannelOccupancy: Sendable, Equatable {
    /// One present uuid, with its state on the channel when asked for.
    public struct Occupant: Sendable, Equatable {
        /// The uuid.
        public var uuid: String
        /// Its state's JSON object text, when state was asked for and it has one.
        public var state: [UInt8]?

        /// Creates an occupant.
        public init(uuid: String, state: [UInt8]? = nil) {
            self.uuid = uuid
            self.state = state
        }
    }

    /// The channel.
    public var channel: String
    /// How many distinct uuids are present.
    public var occupancy: Int
    /// The present uuids sorted, paged by the query's offset and limit; empty when not asked for.
    public var occupants: [Occupant]

    /// Creates a channel's occupancy.
    public init(channel: String, occupancy: Int, occupants: [Occupant] = []) {
        self.channel = channel
        self.occupancy = occupancy
        self.occupants = occupants
    }
}

/// What a here-now query asks for beyond the counts.
public struct OccupancyQuery: Sendable, Equatable {
    /// List the uuids (`disable_uuids` turns this off).
    public var includeUUIDs: Bool
    /// Give each listed uuid its state (`state=1`).
    public var includeState: Bool
    /// Uuids to skip, in sorted order (`offset`).
    public var offset: Int
    /// Most uuids listed per channel (`limit`); nil lists them all.
    public var limit: Int?

    /// Creates a query.
    public init(includeUUIDs: Bool = true, includeState: Bool = false, offset: Int = 0, limit: Int? = nil) {
        self.includeUUIDs = includeUUIDs
        self.includeState = includeState
        self.offset = offset
        self.limit = limit
    }
}
