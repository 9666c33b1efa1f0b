/// A presence refresh as a subscribe or heartbeat carries it.
public struct PresenceUpdate: Sendable, Equatable {
    /// The client's uuid.
    public var uuid: String
    /// Channels named directly; wildcard subscriptions count under their own name (`a.*`).
    /// Presence channels (`…-pnpres`) are ignored.
    public var channels: [String]
    /// Channel groups: the uuid is present on each member channel. `…-pnpres` groups are ignored.
    public var groups: [String]
    /// The presence timeout asked for (`heartbeat`); nil or 0 means the keyset default.
    public var timeoutSeconds: Int?
    /// The `state` parameter: a JSON object keyed by channel or group name, each value an object.
    public var state: [UInt8]?

    /// Creates an update.
    public init(uuid: String, channels: [String] = [], groups: [String] = [], timeoutSeconds: Int? = nil,
                state: [UInt8]? = nil) {
        self.uuid = uuid
        self.channels = channels
        self.groups = groups
        self.timeoutSeconds = timeoutSeconds
        self.state = state
    }

    /// The update for a subscribe to `subscription`: its channels, wildcard names and groups.
    public init(uuid: String, subscription: Subscription, timeoutSeconds: Int? = nil, state: [UInt8]? = nil) {
        // Without patterns the subscription's own array is shared, not copied.
        let channels = subscription.wildcards.isEmpty
            ? subscription.channels : subscription.channels + subscription.wildcards.map(\.pattern)
        self.init(uuid: uuid, channels: channels, groups: subscription.groups, timeoutSeconds: timeoutSeconds,
                  state: state)
    }
}
