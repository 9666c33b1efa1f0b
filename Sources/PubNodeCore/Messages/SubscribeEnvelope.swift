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

    /// Renders the envelope of `draft` accepted at `timetoken` on `subscribeKey`.
    public static func open(_ draft: PublishDraft, timetoken: Timetoken, subscribeKey: String, region: Int) -> Opened {
        var out: [UInt8] = []
        // Everything variable, and 128 for the rest (names, punctuation, timetoken, region): one
        // allocation, grown only when the names need much escaping.
        out.reserveCapacity(draft.payload.count + (draft.meta?.count ?? 0) + draft.channel.utf8.count
            + subscribeKey.utf8.count + (draft.publisher?.utf8.count ?? 0) + (draft.customMessageType?.utf8.count ?? 0)
            + 128)
        append(#"{"a":"0","f":0,"#, to: &out)
        if let publisher = draft.publisher {
            append(#""i":"#, to: &out)
            JSONText.appendString(publisher, to: &out)
            out.append(UInt8(ascii: ","))
        }
        append(#""p":{"t":""#, to: &out)
        timetoken.withDecimalDigits { out.append(contentsOf: $0) }
        append(#"","r":"#, to: &out)
        appendDecimal(region, to: &out)
        append(#"},"k":"#, to: &out)
        JSONText.appendString(subscribeKey, to: &out)
        append(#","c":"#, to: &out)
        JSONText.appendString(draft.channel, to: &out)
        append(#","d":"#, to: &out)
        let payloadStart = out.count
        out.append(contentsOf: draft.payload)
        let payload = payloadStart..<out.count
        var meta: Range<Int>?
        if let bytes = draft.meta {
            append(#","u":"#, to: &out)
            let metaStart = out.count
            out.append(contentsOf: bytes)
            meta = metaStart..<out.count
        }
        if let code = draft.kind.envelopeCode {
            append(#","e":"#, to: &out)
            appendDecimal(Int(code), to: &out)
        }
        if let type = draft.customMessageType {
            append(#","cmt":"#, to: &out)
            JSONText.appendString(type, to: &out)
        }
        return Opened(bytes: out, payload: payload, meta: meta)
    }

    /// Appends a literal's bytes in one copy (a `String` literal's UTF-8 view would go through
    /// the generic sequence append, byte by byte).
    private static func append(_ literal: StaticString, to out: inout [UInt8]) {
        literal.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Appends `value`'s decimal digits without building a string.
    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        DecimalDigits.with(UInt64(value.magnitude)) { out.append(contentsOf: $0) }
    }

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
