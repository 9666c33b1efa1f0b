import Foundation

/// Everything a subscription reports, in the order it happened.
public enum SubscriptionEvent: Sendable, Equatable {
    /// A published message.
    case message(ReceivedMessage)
    /// A signal.
    case signal(ReceivedMessage)
    /// A presence event from a `-pnpres` channel.
    case presence(PresenceChange)
    /// The connection state changed.
    case status(StatusChange)
    /// The set of subscribed channels and groups changed.
    case subscriptionChanged(SubscriptionChange)
    /// The access token expires within `PubNodeConfiguration.tokenExpiryWarning` seconds.
    case tokenNearingExpiry(TokenExpiryNotice)
    /// A message action was added to a message on a subscribed channel.
    case messageActionAdded(MessageAction)
    /// A message action was removed.
    case messageActionRemoved(MessageAction)
    /// A user's App Context metadata was set (the fields the change carries).
    case uuidMetadataSet(UUIDMetadata)
    /// A user's App Context metadata was removed.
    case uuidMetadataRemoved(metadataId: String)
    /// A channel's App Context metadata was set.
    case channelMetadataSet(ChannelMetadata)
    /// A channel's App Context metadata was removed.
    case channelMetadataRemoved(metadataId: String)
    /// A membership was set.
    case membershipMetadataSet(Membership)
    /// A membership was removed.
    case membershipMetadataRemoved(Membership)
    /// A failure the subscription reports (it also moves the status when it stops the subscription).
    case error(PubNodeClientError)
}

/// A message or signal received on a subscription.
public struct ReceivedMessage: Sendable, Equatable {
    /// The concrete channel it was published to.
    public var channel: String
    /// The wildcard pattern or channel group that matched, when not a direct channel subscription.
    public var subscription: String?
    /// The payload.
    public var payload: JSONValue
    /// The publisher's user id, when it gave one.
    public var publisher: String?
    /// The publish timetoken.
    public var timetoken: UInt64
    /// The `meta` published with it.
    public var meta: JSONValue?
    /// The custom message type published with it.
    public var customMessageType: String?
    /// Why the payload could not be decrypted (it is then delivered as it came); nil otherwise.
    public var decryptionError: PubNodeClientError?

    /// A received message.
    public init(channel: String, subscription: String? = nil, payload: JSONValue, publisher: String? = nil,
                timetoken: UInt64, meta: JSONValue? = nil, customMessageType: String? = nil,
                decryptionError: PubNodeClientError? = nil) {
        self.channel = channel
        self.subscription = subscription
        self.payload = payload
        self.publisher = publisher
        self.timetoken = timetoken
        self.meta = meta
        self.customMessageType = customMessageType
        self.decryptionError = decryptionError
    }

    /// The payload decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(PubNodeClientError) -> T {
        try payload.decode(type)
    }
}

/// A presence event: a join, leave, timeout, state change or interval.
public struct PresenceChange: Sendable, Equatable {
    /// The channel it concerns (without `-pnpres`).
    public var channel: String
    /// The wildcard pattern or group that matched, if any.
    public var subscription: String?
    /// `join`, `leave`, `timeout`, `state-change` or `interval`.
    public var action: String
    /// The user id concerned (absent on `interval`).
    public var uuid: String?
    /// The channel's occupancy after the change.
    public var occupancy: Int
    /// Unix seconds of the change.
    public var timestamp: Int
    /// The user's presence state, when it has one.
    public var state: JSONValue?
    /// For `interval`: who joined, left and timed out since the previous one.
    public var join: [String], leave: [String], timeout: [String]
    /// The event's timetoken.
    public var timetoken: UInt64
}

/// The connection state of a subscription.
public enum ConnectionStatus: String, Sendable, Equatable {
    /// The first request of a subscription is under way.
    case connecting
    /// Long-polling normally.
    case connected
    /// Requests failed; retrying with backoff.
    case reconnecting
    /// Not subscribed (nothing to subscribe to, or stopped on request).
    case disconnected
    /// Stopped by an error that retrying cannot fix, or after the last allowed retry.
    case disconnectedUnexpectedly
}

/// A change of `ConnectionStatus`.
public struct StatusChange: Sendable, Equatable {
    /// The state before.
    public var previous: ConnectionStatus
    /// The state now.
    public var current: ConnectionStatus
    /// The error behind the change, if any.
    public var error: PubNodeClientError?
}

/// The subscription set after a change.
public struct SubscriptionChange: Sendable, Equatable {
    /// Subscribed channels (without presence channels), sorted.
    public var channels: [String]
    /// Subscribed channel groups, sorted.
    public var channelGroups: [String]
}
