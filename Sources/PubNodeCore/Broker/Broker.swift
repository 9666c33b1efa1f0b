/// Moves messages from publishers to subscribers: the seam between a node and its message engine
/// (centrifuge's `Broker`).
///
/// A broker gives each message its timetoken, keeps every channel's buffer, delivers messages to
/// the subscribers parked on this node, and holds channel-group membership. `MemoryBroker` is the
/// single-node engine; a clustered engine (Redis) implements the same requirements by issuing
/// timetokens and appending to shared buffers in Redis and delivering what other nodes publish to
/// this node's parked subscribers. `Docs/architecture.md` describes how.
public protocol Broker: Sendable {
    /// The channels of one subscribe key, or nil when the key is not configured.
    func keyset(_ subscribeKey: String) -> (any KeysetBroker)?
    /// Opens the broker of `keyset`, configured at start or created at run time (idempotent).
    func open(_ keyset: Keyset) -> any KeysetBroker
    /// Drops everything of `subscribeKey` (its keyset is deleted); parked polls are woken.
    func close(_ subscribeKey: String)
    /// Every configured keyset, for sweeping.
    var allKeysets: [any KeysetBroker] { get }
}

/// The channels, buffers, groups and parked subscribers of one subscribe key.
///
/// Every method may be called from any thread. Waiters are woken by the broker itself (with
/// `Waiter.wake()`), never handed back to the caller.
public protocol KeysetBroker: Sendable {
    /// The subscribe key served.
    var subscribeKey: String { get }

    /// Accepts a message: issues its timetoken (unique and increasing per channel), appends it to
    /// the channel's buffer, calls `beforeDelivery` with it (the node hands it to history there, so
    /// a subscriber that receives it and reads history at once finds it), then wakes the
    /// subscribers of the channel, its groups and its wildcard patterns.
    func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage

    /// `publish(_:beforeDelivery:)` through `kept`, a state of `draft.channel` that the publisher
    /// keeps across its publishes to that channel (a connection's repeated publishes): a broker that
    /// keeps channel states publishes through it while it lives, without looking the channel up,
    /// and sets it to the state used. A broker keeping none leaves it nil (the default).
    func publish(_ draft: PublishDraft, keeping kept: inout ChannelState?,
                 beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage

    /// False when timetokens are issued elsewhere (a cluster): messages are then accepted with
    /// `submit`, and `publish` must not be called.
    var acceptsSynchronously: Bool { get }

    /// Accepts a message whose timetoken is issued elsewhere: `completion` runs once, on any
    /// thread, with the accepted message or the refusal (`unavailable` while the shared engine is
    /// away). Delivery to subscribers follows on its own, possibly before `completion`.
    func submit(_ draft: PublishDraft, completion: @escaping @Sendable (Result<PublishedMessage, PubNodeError>) -> Void)

    /// Registers `waiter` on everything `subscription` listens to, then reads the buffers after
    /// `cursor`: the messages when some are ready (the waiter is unregistered again), or nil when
    /// it stays parked until a publish wakes it or `cancel` removes it. `kept`: what
    /// `channelState(for:)` gave for `subscription`, if the caller keeps it (nil otherwise).
    func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
              kept: ChannelState?) -> DeliveryBatch?

    /// Registers `waiter` like `park` unless messages after `cursor` are ready: true when they are
    /// (the waiter is not registered; the caller reads them with `read`), false when it stays
    /// parked; ideally told without reading or copying the messages. `kept` as for `park`.
    func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                         kept: ChannelState?) -> Bool

    /// The state of `subscription`'s one channel, for a long-poll to keep across its polls and
    /// hand back to `park` and `parkUnlessReady`, which then park there without looking the
    /// channel up while it lives. Must be nil unless `subscription` is exactly one concrete
    /// channel (no pattern, no group): whoever holds a kept state treats it as the whole
    /// subscription (a long-poll ignores any other). A broker may answer
    /// nil for every subscription: its polls then look their channel up each time, and the
    /// transport shares no answers between them (it names a shared answer's channel by its state).
    func channelState(for subscription: Subscription) -> ChannelState?

    /// The messages for `subscription` after `cursor`, oldest first, each once, capped at the
    /// per-response limit; `next` is the cursor to continue from.
    func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch

    /// Unregisters `waiter` from everything `subscription` listens to. `kept` as for `park`: a
    /// live kept state is unregistered from without looking its channel up.
    func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?)

    /// Unregisters `waiter`, whose answer follows a wake of this broker's, from everything
    /// `subscription` listens to: like `cancel`, except that a broker whose wake already took the
    /// waiter off everything it was registered on may skip that part. The default cancels.
    /// `kept` as for `park`.
    func release(woken waiter: any Waiter, on subscription: Subscription, kept: ChannelState?)

    /// Adds channels to a group (creating it); the change reaches subscribers already parked on it.
    func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError)
    /// Removes channels from a group; unknown channels are ignored.
    func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError)
    /// Deletes a group.
    func deleteGroup(_ group: String) throws(PubNodeError)
    /// A group's channels, sorted.
    func channels(inGroup group: String) throws(PubNodeError) -> [String]
    /// The groups that have channels, sorted.
    func groupNames() -> [String]
    /// Channel groups kept outside this process (a cluster's), or nil when the methods above are
    /// the groups: then they must not be called.
    var sharedGroups: (any SharedChannelGroups)? { get }

    /// Puts stored messages (with their timetokens, oldest first per channel) back into the
    /// buffers after a restart, waking no one; returns how many were buffered.
    func restore(_ messages: [PublishedMessage]) -> Int

    /// Expires old buffered messages and reclaims idle channels.
    func sweep() -> ChannelSweepReport
    /// How many channels and groups the keyset has, and its `busiest` busiest channels (for the
    /// operator; may visit every channel).
    func statistics(busiest: Int) -> BrokerStatistics
}

extension KeysetBroker {
    /// Publishes without a kept state (`publish(_:beforeDelivery:)`), leaving `kept` nil.
    public func publish(_ draft: PublishDraft, keeping kept: inout ChannelState?,
                        beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        kept = nil
        return publish(draft, beforeDelivery: beforeDelivery)
    }

    /// Accepts a message with nothing to do before its delivery.
    public func publish(_ draft: PublishDraft) -> PublishedMessage {
        publish(draft, beforeDelivery: { _ in })
    }

    /// `park(_:on:after:kept:)` with no channel state kept.
    public func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch? {
        park(waiter, on: subscription, after: cursor, kept: nil)
    }

    /// `parkUnlessReady(_:on:after:kept:)` with no channel state kept.
    public func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken) -> Bool {
        parkUnlessReady(waiter, on: subscription, after: cursor, kept: nil)
    }

    /// `cancel(_:on:kept:)` with no channel state kept.
    public func cancel(_ waiter: any Waiter, on subscription: Subscription) {
        cancel(waiter, on: subscription, kept: nil)
    }

    /// Cancels: the wake may have come from outside what the waiter is registered on.
    public func release(woken waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
        cancel(waiter, on: subscription, kept: kept)
    }

    /// `release(woken:on:kept:)` with no channel state kept.
    public func release(woken waiter: any Waiter, on subscription: Subscription) {
        release(woken: waiter, on: subscription, kept: nil)
    }

    /// A broker keeps its groups itself unless it says otherwise.
    public var sharedGroups: (any SharedChannelGroups)? { nil }

    /// A broker issues timetokens itself unless it says otherwise.
    public var acceptsSynchronously: Bool { true }

    /// Accepts the message at once through `publish`.
    public func submit(_ draft: PublishDraft, completion: @escaping @Sendable (Result<PublishedMessage, PubNodeError>) -> Void) {
        completion(.success(publish(draft)))
    }

    /// Accepts a message however the broker does (`publish` or `submit`), with nothing to do
    /// before its delivery and no one waiting for it (events the node itself produces).
    public func deliver(_ draft: PublishDraft) {
        if acceptsSynchronously { _ = publish(draft) } else { submit(draft, completion: { _ in }) }
    }
}

/// Channel groups kept outside the process (in a cluster, in Redis): every change reaches the
/// subscribers parked on the group on every node.
public protocol SharedChannelGroups: Sendable {
    /// Adds channels to a group (creating it).
    func addChannels(_ channels: [String], toGroup group: String) async throws(PubNodeError)
    /// Removes channels from a group; unknown channels are ignored.
    func removeChannels(_ channels: [String], fromGroup group: String) async throws(PubNodeError)
    /// Deletes a group.
    func deleteGroup(_ group: String) async throws(PubNodeError)
    /// A group's channels, sorted.
    func channels(inGroup group: String) async throws(PubNodeError) -> [String]
    /// The groups that have channels, sorted.
    func groupNames() async throws(PubNodeError) -> [String]
}

/// Messages ready for one subscriber and the cursor it continues from.
public struct DeliveryBatch: Sendable {
    /// The messages, oldest first.
    public var deliveries: [Delivery]
    /// The last delivered timetoken, or the request's cursor when nothing was delivered.
    public var next: Timetoken
    /// The channels whose buffers had already dropped messages newer than the cursor: the
    /// subscriber missed them, and only history may still hold them. Empty in the common case.
    public var gaps: [ChannelGap]

    /// Whether the subscriber missed messages that only history may still hold.
    public var missed: Bool { !gaps.isEmpty }

    /// Creates a batch.
    public init(deliveries: [Delivery], next: Timetoken, gaps: [ChannelGap] = []) {
        self.deliveries = deliveries
        self.next = next
        self.gaps = gaps
    }
}

/// Messages of one channel a subscriber missed: its buffer had dropped every message up to and
/// including `through`, and the subscriber's cursor was older.
public struct ChannelGap: Sendable, Equatable {
    /// The concrete channel.
    public var channel: String
    /// The newest timetoken the channel's buffer has dropped.
    public var through: Timetoken

    /// Creates a gap.
    public init(channel: String, through: Timetoken) {
        self.channel = channel
        self.through = through
    }
}

/// What one buffer sweep did.
public struct ChannelSweepReport: Sendable, Equatable {
    /// Messages dropped for age.
    public var expiredMessages = 0
    /// Channels reclaimed (empty, unsubscribed, in no group, idle).
    public var reclaimedChannels = 0
    /// Empty group and wildcard states reclaimed.
    public var reclaimedTopics = 0

    /// An empty report.
    public init() {}

    /// Adds another keyset's figures.
    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.expiredMessages += rhs.expiredMessages
        sum.reclaimedChannels += rhs.reclaimedChannels
        sum.reclaimedTopics += rhs.reclaimedTopics
        return sum
    }
}
