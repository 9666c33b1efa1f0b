/// The target of a presence call (`/v2/presence/sub-key/{sub}/channel/{channels}/…`): channels
/// and groups as given, and who is asking.
public struct PresenceRequest: Sendable {
    /// The subscribe key.
    public var subscribeKey: String
    /// Channel names as given (wildcards allowed, as in a subscribe).
    public var channels: [String]
    /// Channel-group names as given.
    public var groups: [String]
    /// The caller's uuid (`uuid`), if given.
    public var uuid: String?
    /// The caller's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a presence target.
    public init(subscribeKey: String, channels: [String] = [], groups: [String] = [], uuid: String? = nil,
                authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.channels = channels
        self.groups = groups
        self.uuid = uuid
        self.authKey = authKey
    }
}

/// A here-now answer: the occupancy of each channel asked about, and whether exactly one channel
/// (and no group) was named, which PubNub answers in its single-channel form.
public struct HereNow: Sendable {
    /// Occupancy per channel.
    public var channels: [ChannelOccupancy]
    /// One channel, no group, was named.
    public var isSingleChannel: Bool
}

/// A get-state answer: the uuid's state per channel, and whether exactly one channel (and no
/// group) was named.
public struct PresenceStates: Sendable {
    /// The uuid asked about.
    public var uuid: String
    /// Its state per channel (nil: none there).
    public var states: [(channel: String, state: [UInt8]?)]
    /// One channel, no group, was named: `states` has exactly that channel.
    public var isSingleChannel: Bool
}
