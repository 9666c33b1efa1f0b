/// The one owner of PubNub's subscribe envelope: it opens each message's envelope once, when the
/// message is accepted, and closes it in every subscribe response.
///
/// A message's envelope is `{"a":"0","f":0,"i":…,"p":{"t":"<tt>","r":<region>},"k":…,"c":…,"d":<payload>,…`
/// without its closing brace, rendered at publish. A response copies those bytes and appends the
/// per-subscriber `"b"` field (the group or wildcard that matched) and `}`, so payloads are never
/// decoded or re-encoded per subscriber.
public enum SubscribeEnvelope {
    /// An opened envelope and where its payload and `meta` sit in it.
    public struct Opened: Sendable {
        /// The envelope without its final `}`.
        public var bytes: [UInt8]
        /// The payload's range in `bytes`.
        public var payload: Range<Int>
        /// The metadata's range in `bytes`, if any.
        public var meta: Range<Int>?
    }

    /// Renders the envelope of `draft` accepted at `timetoken` on `subscribeKey`: written into
    /// scratch storage sized for the most it can take (`EnvelopeWriter`; on the stack unless
    /// that is large), then copied into an array of exactly its bytes (an allocation of a type
    /// the compiler knows, and one copy).
    public static func open(_ draft: PublishDraft, timetoken: Timetoken, subscribeKey: String, region: Int) -> Opened {
        let publisherBound = draft.publisher.map { size(#""i":"#) + EnvelopeWriter.bound(quoted: $0) + 1 } ?? 0
        let metaBound = draft.meta.map { size(#","u":"#) + $0.count } ?? 0
        let typeBound = draft.customMessageType.map { size(#","cmt":"#) + EnvelopeWriter.bound(quoted: $0) } ?? 0
        let fixedBound = size(#"{"a":"0","f":0,"#) + size(#""p":{"t":""#) + 20 + size(#"","r":"#) + 21
            + size(#"},"k":"#) + size(#","c":"#) + size(#","d":"#) + size(#","e":"#) + 3
        let bound = fixedBound + publisherBound + EnvelopeWriter.bound(quoted: subscribeKey)
            + EnvelopeWriter.bound(quoted: draft.channel) + draft.payload.count + metaBound + typeBound
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            var out = EnvelopeWriter(scratch)
            out.write(#"{"a":"0","f":0,"#)
            if let publisher = draft.publisher {
                out.write(#""i":"#)
                out.write(quoted: publisher)
                out.write(byte: UInt8(ascii: ","))
            }
            out.write(#""p":{"t":""#)
            out.write(decimal: timetoken.rawValue)
            out.write(#"","r":"#)
            if region < 0 { out.write(byte: UInt8(ascii: "-")) }
            out.write(decimal: UInt64(region.magnitude))
            out.write(#"},"k":"#)
            out.write(quoted: subscribeKey)
            out.write(#","c":"#)
            out.write(quoted: draft.channel)
            out.write(#","d":"#)
            let payloadStart = out.count
            out.write(draft.payload)
            let payload = payloadStart..<out.count
            var meta: Range<Int>?
            if let bytes = draft.meta {
                out.write(#","u":"#)
                let metaStart = out.count
                out.write(bytes)
                meta = metaStart..<out.count
            }
            if let code = draft.kind.envelopeCode {
                out.write(#","e":"#)
                out.write(decimal: UInt64(code))
            }
            if let type = draft.customMessageType {
                out.write(#","cmt":"#)
                out.write(quoted: type)
            }
            return Opened(bytes: Array(UnsafeBufferPointer(rebasing: scratch[..<out.count])), payload: payload, meta: meta)
        }
    }

    /// A literal's length in bytes.
    private static func size(_ literal: StaticString) -> Int { literal.utf8CodeUnitCount }

    /// Bytes a response for `deliveries` needs, to reserve the buffer once.
    @inlinable
    public static func capacity(for deliveries: [Delivery]) -> Int {
        var capacity = 64
        for delivery in deliveries { capacity += delivery.message.envelope.count + (delivery.match?.utf8.count ?? 0) + 16 }
        return capacity
    }

    /// Writes `{"t":{"t":"<next>","r":<region>},"m":[…]}` for `deliveries` into `sink`, closing each
    /// message's envelope. Inlinable, so the transport's buffer type is specialized in.
    ///
    /// With `gaps`, the answer also says which channels' buffers had dropped messages the subscriber
    /// never received: `"missed":[{"channel":"<name>","through":"<newest dropped timetoken>"}]`,
    /// a field the official SDKs ignore and `PubNodeClient` fills from history.
    @inlinable
    public static func write<Sink: ByteSink>(_ deliveries: [Delivery], next: Timetoken, region: Int,
                                             gaps: [ChannelGap] = [], into sink: inout Sink) {
        sink.append(utf8: #"{"t":{"t":""#)
        sink.append(utf8: next.description)
        sink.append(utf8: #"","r":"#)
        sink.append(utf8: String(region))
        sink.append(utf8: #"},"m":["#)
        var first = true
        for delivery in deliveries {
            if !first { sink.append(byte: UInt8(ascii: ",")) }
            first = false
            sink.append(delivery.message.envelope)
            if let match = delivery.match {
                sink.append(utf8: #","b":"#)
                sink.append(utf8: JSONText.string(match))
            }
            sink.append(byte: UInt8(ascii: "}"))
        }
        sink.append(byte: UInt8(ascii: "]"))
        if !gaps.isEmpty { writeGaps(gaps, into: &sink) }
        sink.append(byte: UInt8(ascii: "}"))
    }

    /// Writes `,"missed":[…]` for `gaps`.
    @usableFromInline
    static func writeGaps<Sink: ByteSink>(_ gaps: [ChannelGap], into sink: inout Sink) {
        sink.append(utf8: #","missed":["#)
        for (index, gap) in gaps.enumerated() {
            if index > 0 { sink.append(byte: UInt8(ascii: ",")) }
            sink.append(utf8: #"{"channel":"#)
            sink.append(utf8: JSONText.string(gap.channel))
            sink.append(utf8: #","through":""#)
            sink.append(utf8: gap.through.description)
            sink.append(utf8: #""}"#)
        }
        sink.append(byte: UInt8(ascii: "]"))
    }
}
