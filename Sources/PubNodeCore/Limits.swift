/// The node's configurable limits, shared by every keyset.
public struct Limits: Sendable, Equatable, Codable {
    /// Messages kept per channel ring buffer.
    public var bufferSize: Int = 100
    /// Most messages in one subscribe response.
    public var messagesPerResponse: Int = 100
    /// Largest message, counted as PubNub counts it (URL-encoded payload plus channel name), in bytes.
    public var maxMessageBytes: Int = 32 * 1024
    /// Largest signal payload, in bytes of JSON text.
    public var maxSignalBytes: Int = 30
    /// Largest HTTP request body accepted before it is refused unread, in bytes.
    public var maxBodyBytes: Int = 64 * 1024
    /// Most channels named in one subscribe (wildcards included).
    public var maxChannelsPerSubscribe: Int = 500
    /// Most channel groups named in one subscribe.
    public var maxGroupsPerSubscribe: Int = 10
    /// Most channels in one channel group.
    public var maxChannelsPerGroup: Int = 2000
    /// Seconds a long-poll stays parked before answering with no messages.
    public var longPollTimeoutSeconds: Int = 280
    /// Seconds a channel with no messages, subscribers or groups lingers before it is reclaimed.
    public var idleChannelSeconds: Int = 60
    /// Seconds a message stays in a ring buffer (0 keeps it until pushed out by newer ones).
    public var bufferRetentionSeconds: Int = 3600
    /// Seconds a connection may send nothing before it is closed; longer than a long-poll lasts.
    public var idleConnectionSeconds: Int = 310
    /// Seconds a uuid stays present without a subscribe or heartbeat, when the client names none.
    public var presenceTimeoutSeconds: Int = 300
    /// The shortest presence timeout a client may ask for; shorter requests are raised to it.
    public var presenceMinTimeoutSeconds: Int = 20
    /// Occupancy above which a channel's per-uuid presence events give way to `interval` events.
    public var announceMax: Int = 20
    /// Seconds between `interval` presence events of a channel above `announceMax`.
    public var presenceIntervalSeconds: Int = 10
    /// Largest presence state object of one uuid on one channel, in bytes of JSON text.
    public var maxStateBytes: Int = 32 * 1024
    /// Most header fields in one request; more are refused with 431.
    public var maxHeaderCount: Int = 100
    /// Largest request head (request line and headers), in bytes; larger is refused with 431.
    /// It must hold a GET publish of the largest message.
    public var maxHeadBytes: Int = 64 * 1024
    /// Seconds a request may take to arrive completely (head and body) from its first byte; a
    /// slower one is answered 408 and its connection closed.
    public var requestTimeoutSeconds: Int = 20
    /// Most channel groups one keyset may hold.
    public var maxGroupsPerKeyset: Int = 10_000
    /// Most channels one uuid may hold presence state on at once.
    public var maxStatesPerUUID: Int = 1_000
    /// Most App Context objects of each kind (uuids, channels) one keyset may hold.
    public var maxObjectsPerKeyset: Int = 10_000
    /// Most memberships one uuid, or members one channel, may have (App Context).
    public var maxMembershipsPerObject: Int = 1_000
    /// Most memberships one keyset may hold in all (App Context).
    public var maxMembershipsPerKeyset: Int = 100_000
    /// Largest App Context `custom` object, in bytes of its JSON.
    public var maxObjectCustomBytes: Int = 4 * 1024
    /// Most message actions one message may hold (PubNub's default).
    public var maxActionsPerMessage: Int = 25_000

    /// The defaults.
    public init() {}

    /// Checks that every limit is in range, naming the first one that is not.
    public func validate() throws(ConfigurationError) {
        let positive: [(String, Int)] = [
            ("bufferSize", bufferSize), ("messagesPerResponse", messagesPerResponse),
            ("maxMessageBytes", maxMessageBytes), ("maxSignalBytes", maxSignalBytes),
            ("maxBodyBytes", maxBodyBytes), ("maxChannelsPerSubscribe", maxChannelsPerSubscribe),
            ("maxGroupsPerSubscribe", maxGroupsPerSubscribe), ("maxChannelsPerGroup", maxChannelsPerGroup),
            ("longPollTimeoutSeconds", longPollTimeoutSeconds), ("idleChannelSeconds", idleChannelSeconds),
            ("maxHeaderCount", maxHeaderCount), ("maxHeadBytes", maxHeadBytes),
            ("requestTimeoutSeconds", requestTimeoutSeconds), ("maxGroupsPerKeyset", maxGroupsPerKeyset),
            ("maxStatesPerUUID", maxStatesPerUUID), ("maxActionsPerMessage", maxActionsPerMessage),
            ("maxObjectsPerKeyset", maxObjectsPerKeyset), ("maxMembershipsPerObject", maxMembershipsPerObject),
            ("maxMembershipsPerKeyset", maxMembershipsPerKeyset), ("maxObjectCustomBytes", maxObjectCustomBytes),
        ]
        for (name, value) in positive where value <= 0 {
            throw ConfigurationError("\(name) must be positive (got \(value))")
        }
        if idleConnectionSeconds <= longPollTimeoutSeconds {
            throw ConfigurationError("idleConnectionSeconds (\(idleConnectionSeconds)) must exceed longPollTimeoutSeconds (\(longPollTimeoutSeconds))")
        }
        if maxHeadBytes < maxMessageBytes + 4096 {
            throw ConfigurationError("maxHeadBytes (\(maxHeadBytes)) must hold a GET publish: at least maxMessageBytes + 4096")
        }
        if bufferRetentionSeconds < 0 {
            throw ConfigurationError("bufferRetentionSeconds must not be negative")
        }
        try presence.validate()
    }

    /// The presence settings these limits give a keyset without overrides.
    public var presence: PresenceSettings { PresenceSettings(limits: self) }
}

/// A configuration value out of range or unreadable.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// What is wrong, for the operator.
    public var description: String

    /// Creates an error with a message.
    public init(_ description: String) { self.description = description }
}
