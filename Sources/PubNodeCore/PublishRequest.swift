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
    /// Contiguous bytes (an array, a native string's UTF-8) are read in place; the count is their
    /// number plus two for each byte that is escaped.
    public static func urlEncodedLength<C: Sequence>(_ bytes: C) -> Int where C.Element == UInt8 {
        if let length = bytes.withContiguousStorageIfAvailable({ urlEncodedLength(contiguous: $0) }) {
            return length
        }
        var length = 0
        for byte in bytes { length += isUnreserved(byte) ? 1 : 3 }
        return length
    }

    private static func urlEncodedLength(contiguous bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var escaped = 0
        for byte in bytes where !isUnreserved(byte) { escaped += 1 }
        return bytes.count + 2 * escaped
    }

    /// Whether `byte` is an RFC 3986 unreserved character (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`,
    /// `.`, `~`), told by one bit of a 128-bit set rather than by a chain of range checks.
    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        if byte < 64 { return unreservedBelow64 >> UInt64(byte) & 1 == 1 }
        return byte < 128 && unreservedFrom64 >> UInt64(byte - 64) & 1 == 1
    }

    /// Bytes 0–63 that are unreserved: `-` (45), `.` (46), `0`–`9` (48–57).
    private static let unreservedBelow64: UInt64 = 1 << 45 | 1 << 46 | 0x3FF << 48
    /// Bytes 64–127 that are unreserved, less 64: `A`–`Z` (1–26), `_` (31), `a`–`z` (33–58), `~` (62).
    private static let unreservedFrom64: UInt64 = 0x3FF_FFFF << 1 | 1 << 31 | 0x3FF_FFFF << 33 | 1 << 62
}
