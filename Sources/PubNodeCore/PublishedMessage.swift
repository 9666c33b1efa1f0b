/// A message accepted into a channel buffer, with its subscribe envelope rendered once.
///
/// `envelope` holds the JSON object of the subscribe response without its closing brace, so a
/// response can append the per-subscriber `"b"` field and `}` by copying bytes: the payload is
/// never decoded or re-encoded per subscriber.
public final class PublishedMessage: Sendable {
    /// The message's timetoken, unique on this node.
    public let timetoken: Timetoken
    /// The concrete channel it was published to.
    public let channel: String
    /// Wall time of publication in nanoseconds (for retention).
    public let publishedAtNanoseconds: UInt64
    /// The rendered envelope, missing its final `}`.
    public let envelope: [UInt8]
    /// The publisher's uuid, if given.
    public let publisher: String?
    /// Message or signal.
    public let kind: MessageKind
    /// The user-defined message type, if given.
    public let customMessageType: String?
    /// Whether the publisher asked for storage.
    public let store: Bool
    /// Per-message storage TTL in hours, if given.
    public let ttlHours: Int?
    private let payloadRange: Range<Int>
    private let metaRange: Range<Int>?

    /// The payload's JSON text, byte-exact as published.
    public var payload: ArraySlice<UInt8> { envelope[payloadRange] }
    /// The publisher metadata's JSON text, if any.
    public var meta: ArraySlice<UInt8>? { metaRange.map { envelope[$0] } }

    /// Renders the envelope for `draft` published at `timetoken` on `subscribeKey`.
    public init(draft: PublishDraft, timetoken: Timetoken, subscribeKey: String, region: Int,
                publishedAtNanoseconds: UInt64) {
        self.timetoken = timetoken
        self.channel = draft.channel
        self.publishedAtNanoseconds = publishedAtNanoseconds
        self.publisher = draft.publisher
        self.kind = draft.kind
        self.customMessageType = draft.customMessageType
        self.store = draft.store
        self.ttlHours = draft.ttlHours
        var out: [UInt8] = []
        out.reserveCapacity(draft.payload.count + (draft.meta?.count ?? 0) + draft.channel.utf8.count + 128)
        out.append(contentsOf: #"{"a":"0","f":0,"#.utf8)
        if let publisher = draft.publisher {
            out.append(contentsOf: #""i":"#.utf8)
            JSONText.appendString(publisher, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""p":{"t":""#.utf8)
        out.append(contentsOf: timetoken.description.utf8)
        out.append(contentsOf: #"","r":"#.utf8)
        out.append(contentsOf: String(region).utf8)
        out.append(contentsOf: #"},"k":"#.utf8)
        JSONText.appendString(subscribeKey, to: &out)
        out.append(contentsOf: #","c":"#.utf8)
        JSONText.appendString(draft.channel, to: &out)
        out.append(contentsOf: #","d":"#.utf8)
        let payloadStart = out.count
        out.append(contentsOf: draft.payload)
        self.payloadRange = payloadStart..<out.count
        if let meta = draft.meta {
            out.append(contentsOf: #","u":"#.utf8)
            let metaStart = out.count
            out.append(contentsOf: meta)
            self.metaRange = metaStart..<out.count
        } else {
            self.metaRange = nil
        }
        if draft.kind == .signal {
            out.append(contentsOf: #","e":1"#.utf8)
        }
        if let type = draft.customMessageType {
            out.append(contentsOf: #","cmt":"#.utf8)
            JSONText.appendString(type, to: &out)
        }
        self.envelope = out
    }
}
