import Synchronization

/// A message accepted into a channel buffer, with its subscribe envelope opened once by
/// `SubscribeEnvelope` (which also closes it in every response).
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
    /// The parsed filter document, filled on first use (`filterDocument`); never touched when no
    /// subscriber filters.
    let filterDocumentCache = AtomicLazyReference<FilterDocument>()
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
        let opened = SubscribeEnvelope.open(draft, timetoken: timetoken, subscribeKey: subscribeKey, region: region)
        self.payloadRange = opened.payload
        self.metaRange = opened.meta
        self.envelope = opened.bytes
    }
}
