/// A validated publish request, before it has a timetoken.
public struct PublishDraft: Sendable {
    /// The concrete destination channel.
    public var channel: String
    /// The payload's JSON text, byte-exact as received.
    public var payload: [UInt8]
    /// Optional publisher metadata, JSON text.
    public var meta: [UInt8]?
    /// The publisher's uuid, when it gave one.
    public var publisher: String?
    /// Message, signal or presence event.
    public var kind: MessageKind
    /// Optional user-defined message type (`custom_message_type`).
    public var customMessageType: String?
    /// Whether the publisher asked for storage (`store`), for the history store.
    public var store: Bool
    /// Per-message storage TTL in hours, if given.
    public var ttlHours: Int?

    /// Creates a draft.
    public init(channel: String, payload: [UInt8], meta: [UInt8]? = nil, publisher: String? = nil,
                kind: MessageKind = .message, customMessageType: String? = nil,
                store: Bool = true, ttlHours: Int? = nil) {
        self.channel = channel
        self.payload = payload
        self.meta = meta
        self.publisher = publisher
        self.kind = kind
        self.customMessageType = customMessageType
        self.store = store
        self.ttlHours = ttlHours
    }
}
