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
        out.reserveCapacity(draft.payload.count + (draft.meta?.count ?? 0) + draft.channel.utf8.count + 128)
        out.append(contentsOf: #"{"a":"0","f":0,"#.utf8)
        if let publisher = draft.publisher {
            out.append(contentsOf: #""i":"#.utf8)
            JSONText.appendString(publisher, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""p":{"t":""#.utf8)
        timetoken.withDecimalDigits { out.append(contentsOf: $0) }
        out.append(contentsOf: #"","r":"#.utf8)
        out.append(contentsOf: String(region).utf8)
        out.append(contentsOf: #"},"k":"#.utf8)
        JSONText.appendString(subscribeKey, to: &out)
        out.append(contentsOf: #","c":"#.utf8)
        JSONText.appendString(draft.channel, to: &out)
        out.append(contentsOf: #","d":"#.utf8)
        let payloadStart = out.count
        out.append(contentsOf: draft.payload)
        let payload = payloadStart..<out.count
        var meta: Range<Int>?
        if let bytes = draft.meta {
            out.append(contentsOf: #","u":"#.utf8)
            let metaStart = out.count
            out.append(contentsOf: bytes)
            meta = metaStart..<out.count
        }
        if let code = draft.kind.envelopeCode {
            out.append(contentsOf: #","e":"#.utf8)
            out.append(contentsOf: String(code).utf8)
        }
        if let type = draft.customMessageType {
            out.append(contentsOf: #","cmt":"#.utf8)
            JSONText.appendString(type, to: &out)
        }
        return Opened(bytes: out, payload: payload, meta: meta)
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
