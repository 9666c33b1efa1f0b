/// A publish, signal or fire as decoded from the wire, not yet validated.
public struct PublishRequest: Sendable {
    /// The publish key given.
    public var publishKey: String
    /// The subscribe key given.
    public var subscribeKey: String
    /// The destination channel.
    public var channel: String
    /// The payload's JSON text.
    public var payload: [UInt8]
    /// The `meta` parameter's JSON text, if given.
    public var meta: [UInt8]?
    /// The publisher's uuid, if given.
    public var uuid: String?
    /// Message or signal.
    public var kind: MessageKind
    /// `store` parameter, if given.
    public var store: Bool?
    /// `norep` parameter: true for fire.
    public var noReplication: Bool
    /// `ttl` parameter in hours, if given.
    public var ttlHours: Int?
    /// `custom_message_type`, if given.
    public var customMessageType: String?
    /// `auth` parameter, if given.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?

    /// Creates a request.
    public init(publishKey: String, subscribeKey: String, channel: String, payload: [UInt8],
                meta: [UInt8]? = nil, uuid: String? = nil, kind: MessageKind = .message,
                store: Bool? = nil, noReplication: Bool = false, ttlHours: Int? = nil,
                customMessageType: String? = nil, authKey: String? = nil) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.channel = channel
        self.payload = payload
        self.meta = meta
        self.uuid = uuid
        self.kind = kind
        self.store = store
        self.noReplication = noReplication
        self.ttlHours = ttlHours
        self.customMessageType = customMessageType
        self.authKey = authKey
    }

    /// True for a fire: a publish with `store=0` and `norep` set, delivered to hooks only.
    public var isFire: Bool { kind == .message && store == false && noReplication }

    /// The size PubNub counts against the message limit: the URL-encoded payload plus the channel name.
    public var countedSize: Int {
        countedSize(payload: payload)
    }

    /// `countedSize` with `payload` in place of the request's own.
    public func countedSize(payload: [UInt8]) -> Int {
        PublishRequest.urlEncodedLength(payload) + PublishRequest.urlEncodedLength(channel.utf8)
    }

    /// Length of `bytes` once percent-encoded, leaving only RFC 3986 unreserved characters bare.
    public static func urlEncodedLength<C: Sequence>(_ bytes: C) -> Int where C.Element == UInt8 {
        var length = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "."), UInt8(ascii: "~"):
                length += 1
            default:
                length += 3
            }
        }
        return length
    }
}
