import NIOCore
import PubNodeCore

/// A message as it travels between nodes through Redis: everything a node needs to rebuild the
/// message and its envelope, except the timetoken (issued by the channel log) and the channel (named
/// by the Redis key). Encoded once by the accepting node; the payload and `meta` are the
/// publisher's JSON bytes, validated once there and never re-encoded.
///
/// Layout (version 1): `01`, kind, flags (bit 0 store, 1 ttl, 2 publisher, 3 custom type, 4 meta),
/// publication time in nanoseconds (8 bytes, big-endian), the ttl in hours (4 bytes) when flagged,
/// each flagged text as a 4-byte length and its bytes, then the payload to the end.
public struct ClusterRecord: Sendable, Equatable {
    /// Message, signal, or an event the node produced.
    public var kind: MessageKind
    /// Whether the publisher asked for storage.
    public var store: Bool
    /// Per-message storage TTL in hours, if given.
    public var ttlHours: Int?
    /// The publisher's uuid, if given.
    public var publisher: String?
    /// The user-defined message type, if given.
    public var customMessageType: String?
    /// The publisher metadata's JSON text, if any.
    public var meta: [UInt8]?
    /// The payload's JSON text.
    public var payload: [UInt8]
    /// Wall time of acceptance in nanoseconds.
    public var publishedAtNanoseconds: UInt64

    /// The record of `draft` accepted at `publishedAtNanoseconds`.
    public init(draft: PublishDraft, publishedAtNanoseconds: UInt64) {
        kind = draft.kind
        store = draft.store
        ttlHours = draft.ttlHours
        publisher = draft.publisher
        customMessageType = draft.customMessageType
        meta = draft.meta
        payload = draft.payload
        self.publishedAtNanoseconds = publishedAtNanoseconds
    }

    /// The draft this record carries, for `channel`.
    public func draft(channel: String) -> PublishDraft {
        PublishDraft(channel: channel, payload: payload, meta: meta, publisher: publisher, kind: kind,
                     customMessageType: customMessageType, store: store, ttlHours: ttlHours)
    }

    /// The encoded record.
    public var encoded: ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(payload.count + (meta?.count ?? 0) + 64)
        var flags: UInt8 = store ? 1 : 0
        if ttlHours != nil { flags |= 2 }
        if publisher != nil { flags |= 4 }
        if customMessageType != nil { flags |= 8 }
        if meta != nil { flags |= 16 }
        out.writeInteger(UInt8(1))
        out.writeInteger(kind.rawValue)
        out.writeInteger(flags)
        out.writeInteger(publishedAtNanoseconds)
        if let ttlHours { out.writeInteger(UInt32(clamping: ttlHours)) }
        for text in [publisher.map { Array($0.utf8) }, customMessageType.map { Array($0.utf8) }, meta] {
            guard let text else { continue }
            out.writeInteger(UInt32(text.count))
            out.writeBytes(text)
        }
        out.writeBytes(payload)
        return out
    }

    /// Decodes a record; throws `unexpectedReply` for anything that is not one (truncated,
    /// unknown version or kind, lengths past the end, text that is not UTF-8).
    public init(decoding bytes: ByteBuffer) throws(RedisError) {
        var input = bytes
        guard input.readInteger(as: UInt8.self) == 1 else { throw .unexpectedReply("unknown record version") }
        guard let rawKind = input.readInteger(as: UInt8.self), let kind = MessageKind(rawValue: rawKind),
              let flags = input.readInteger(as: UInt8.self), flags < 32,
              let published = input.readInteger(as: UInt64.self) else { throw .unexpectedReply("truncated record") }
        var ttl: Int?
        if flags & 2 != 0 {
            guard let hours = input.readInteger(as: UInt32.self) else { throw .unexpectedReply("truncated record") }
            ttl = Int(hours)
        }
        func field(_ bit: UInt8) throws(RedisError) -> [UInt8]? {
            guard flags & bit != 0 else { return nil }
            guard let length = input.readInteger(as: UInt32.self), let bytes = input.readBytes(length: Int(length)) else {
                throw .unexpectedReply("record field past its end")
            }
            return bytes
        }
        func text(_ bit: UInt8) throws(RedisError) -> String? {
            guard let bytes = try field(bit) else { return nil }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .unexpectedReply("record text is not UTF-8") }
            return text
        }
        self.kind = kind
        self.store = flags & 1 != 0
        self.ttlHours = ttl
        self.publisher = try text(4)
        self.customMessageType = try text(8)
        self.meta = try field(16)
        self.payload = input.readBytes(length: input.readableBytes) ?? []
        self.publishedAtNanoseconds = published
    }
}
