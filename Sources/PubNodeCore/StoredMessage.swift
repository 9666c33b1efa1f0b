/// One message as kept in history: the payload and metadata as the exact JSON text bytes published.
public struct StoredMessage: Sendable, Equatable {
    /// The keyset's subscribe key.
    public var subscribeKey: String
    /// The concrete channel.
    public var channel: String
    /// The timetoken issued at publish.
    public var timetoken: Timetoken
    /// The payload's JSON text, byte-exact.
    public var payload: [UInt8]
    /// The publisher metadata's JSON text, if any.
    public var meta: [UInt8]?
    /// The publisher's uuid, if given.
    public var publisher: String?
    /// PubNub's message type number: 0 for a published message (the only kind stored today).
    public var messageType: Int
    /// The user-defined message type, if given.
    public var customMessageType: String?
    /// Wall time (Unix nanoseconds) from which the message is gone from history; nil keeps it forever.
    public var expiresAtNanoseconds: UInt64?

    /// Creates a stored message.
    public init(subscribeKey: String, channel: String, timetoken: Timetoken, payload: [UInt8], meta: [UInt8]? = nil,
                publisher: String? = nil, messageType: Int = 0, customMessageType: String? = nil,
                expiresAtNanoseconds: UInt64? = nil) {
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.timetoken = timetoken
        self.payload = payload
        self.meta = meta
        self.publisher = publisher
        self.messageType = messageType
        self.customMessageType = customMessageType
        self.expiresAtNanoseconds = expiresAtNanoseconds
    }

    /// The record of an accepted message, expiring as `expiresAtNanoseconds` says.
    public init(_ message: PublishedMessage, subscribeKey: String, expiresAtNanoseconds: UInt64?) {
        self.init(subscribeKey: subscribeKey, channel: message.channel, timetoken: message.timetoken,
                  payload: Array(message.payload), meta: message.meta.map { Array($0) }, publisher: message.publisher,
                  customMessageType: message.customMessageType, expiresAtNanoseconds: expiresAtNanoseconds)
    }

    /// True once `now` (Unix nanoseconds) has reached the expiry.
    public func isExpired(at now: UInt64) -> Bool {
        expiresAtNanoseconds.map { $0 <= now } ?? false
    }

    /// The message rebuilt for a channel ring (after a restart), published at its timetoken's time.
    public func published(region: Int) -> PublishedMessage {
        let draft = PublishDraft(channel: channel, payload: payload, meta: meta, publisher: publisher, kind: .message,
                                 customMessageType: customMessageType, store: true)
        let (nanoseconds, overflow) = timetoken.rawValue.multipliedReportingOverflow(by: 100)
        return PublishedMessage(draft: draft, timetoken: timetoken, subscribeKey: subscribeKey, region: region,
                                publishedAtNanoseconds: overflow ? .max : nanoseconds)
    }
}
