/// A subscribe long-poll as decoded from the wire (`/v2/subscribe/{sub}/{channels}/0`).
public struct SubscribeRequest: Sendable {
    /// The subscribe key.
    public var subscribeKey: String
    /// Channel names as given: concrete, wildcard (`a.*`) or presence (`c-pnpres`).
    public var channels: [String]
    /// Channel-group names as given.
    public var groups: [String]
    /// The client's cursor (`tt`); zero asks for a handshake.
    public var cursor: Timetoken
    /// The client's uuid; with one, each poll also refreshes its presence.
    public var uuid: String?
    /// The presence timeout asked for (`heartbeat`), in seconds; 0 or nil for the keyset default.
    public var heartbeatSeconds: Int?
    /// Presence state to set, keyed by channel or group (`state`).
    public var state: [UInt8]?
    /// The client's auth key or token.
    public var authKey: String?
    /// The request as signed, when it carries a `signature` (the transport fills it in).
    public var signature: SignedRequest?
    /// The subscribe filter expression (`filter-expr`), if any; an empty one filters nothing.
    public var filter: String?

    /// Creates a subscribe request.
    public init(subscribeKey: String, channels: [String], groups: [String] = [], cursor: Timetoken = .zero,
                uuid: String? = nil, heartbeatSeconds: Int? = nil, state: [UInt8]? = nil, authKey: String? = nil) {
        self.subscribeKey = subscribeKey
        self.channels = channels
        self.groups = groups
        self.cursor = cursor
        self.uuid = uuid
        self.heartbeatSeconds = heartbeatSeconds
        self.state = state
        self.authKey = authKey
    }
}

/// A subscribe request with its names validated (`Node.prepare(_:)`): what a transport keeps for a
/// connection whose polls repeat the same request with a new cursor. It holds what each poll is
/// authorized as, not a decision: `Node.subscribe(_:cursor:presence:)` authorizes every poll.
///
/// A class, immutable: a transport passes it for each poll at the cost of one retain, where a
/// value would retain every string and array it holds. What a repeated poll reads of it comes
/// first: the presence refresh, then the request, whose first field is the subscribe key (read
/// first, to find the keyset). A woken subscriber's next poll reads the first two cache lines of it
/// and no more when its keyset asks nothing of the access request
/// (`Node.subscribe(_:cursor:presence:repeating:)`).
public final class PreparedSubscribe: Sendable {
    /// The presence refresh each poll makes, nil without a uuid: built once, since it depends on
    /// the request alone.
    let presence: PresenceUpdate?
    /// The request as decoded (its own cursor is not used: each poll gives one).
    public let request: SubscribeRequest
    /// What it listens to.
    let subscription: Subscription
    /// What each poll is authorized as (read access to everything it listens to): built once like
    /// `presence`.
    let access: AccessRequest

    init(request: SubscribeRequest, subscription: Subscription, access: AccessRequest, presence: PresenceUpdate?) {
        // Told without reading it by `operation` (`AccessRequestSource`).
        assert(access.operation == .subscribe, "a prepared subscribe authorized as another operation")
        self.presence = presence
        self.request = request
        self.subscription = subscription
        self.access = access
    }
}

/// How a subscribe goes on after `Node.subscribe`.
public enum SubscribeStart: Sendable {
    /// A handshake (`tt=0`): answer at once with no messages and this cursor.
    case handshake(Timetoken)
    /// A long-poll: answer with what is ready, or park it (`LongPoll.park`).
    case poll(LongPoll)
}

/// A validated, authorized long-poll: what it listens to and the client's cursor. The transport
/// parks it with a `Waiter` of its own and answers when woken.
///
/// Immutable: a poll whose filter rejected a whole batch reads on from a later cursor, which the
/// transport keeps beside it and passes to `park(_:after:)` and `read(after:)`. (A transport that
/// holds the long-poll in a class can then read it in place rather than copying it for each call.)
public struct LongPoll: Sendable {
    /// What is listened to.
    public let subscription: Subscription
    /// The client's cursor (`tt`).
    public let cursor: Timetoken
    /// The subscriber's filter: messages and signals it rejects are not delivered.
    public let filter: CompiledFilter?
    let broker: any KeysetBroker
    /// The keyset it was started on: a repeated poll reuses it while it is still served
    /// (`Node.subscribe(_:cursor:presence:repeating:)`) instead of looking the key up.
    let keyset: ServedKeyset
    /// Its one channel's state, kept for every park (`KeysetBroker.channelState(for:)`); nil for
    /// several topics.
    let channel: ChannelState?
    /// `sharedChannel`'s identity, stored, so that reading it retains nothing (the state is
    /// shared by every event loop's polls of the channel). Non-nil exactly for a subscription to
    /// one channel on a broker that keeps channel states: the transport tells such a poll by it,
    /// without reading the subscription's name list.
    public let sharedChannelID: ObjectIdentifier?
    /// The address of the keyset's counters, stored for the same reason (`DeliveryTally`).
    private let countersAddress: UInt

    /// Whether a repeated poll can park this long-poll again: its keyset is still served and its
    /// channel's state has not been reclaimed (a new long-poll then takes the live one).
    var isCurrent: Bool { keyset.isServed && channel?.isReclaimed != true }

    /// Whether the keyset it was started on is still served: a poll woken because its keyset was
    /// deleted finds it false, and is answered rather than parked again on a hub no publish
    /// reaches any more. (A reclaimed channel state is no reason: parking looks the live one up.)
    public var isServed: Bool { keyset.isServed }

    /// A poll of `subscription` on `keyset`, whose channel state it looks up once, here.
    init(subscription: Subscription, cursor: Timetoken, filter: CompiledFilter? = nil, keyset: ServedKeyset) {
        self.subscription = subscription
        self.cursor = cursor
        self.filter = filter
        self.broker = keyset.broker
        self.keyset = keyset
        // Kept only as the broker's protocol promises it: for a subscription's one channel, and
        // that channel's. Everything that goes through a kept state (parking, cancelling, sharing
        // answers) reads nothing else of the subscription, so a state given otherwise is ignored.
        let channel = subscription.singleChannel.flatMap { name in
            keyset.broker.channelState(for: subscription).flatMap { $0.name == name ? $0 : nil }
        }
        self.channel = channel
        self.sharedChannelID = channel.map(ObjectIdentifier.init)
        self.countersAddress = DeliveryTally.address(of: keyset.counters)
    }

    /// Registers `waiter`, then reads: the messages when some are ready after `cursor` (the
    /// waiter is unregistered again), or nil when it stays parked until woken or cancelled. With a
    /// filter, the batch holds only what passes it (see `isFilteredOut(_:after:)`).
    public func park(_ waiter: any Waiter, after cursor: Timetoken) -> DeliveryBatch? {
        guard let batch = broker.park(waiter, on: subscription, after: cursor, kept: channel) else { return nil }
        return filtered(batch)
    }

    /// Registers `waiter` unless messages are buffered after `cursor`: true when they are (the
    /// waiter is not registered; `read(after:)` gets them), false when it stays parked. On one
    /// channel the node's brokers tell without reading or copying anything (on several they read,
    /// as `park` does). With a filter the messages found may all be rejected, so the read
    /// can come back empty (`isFilteredOut`); `park(_:after:)` tells that at once instead.
    public func parkUnlessReady(_ waiter: any Waiter, after cursor: Timetoken) -> Bool {
        broker.parkUnlessReady(waiter, on: subscription, after: cursor, kept: channel)
    }

    /// `park(_:after:)` from the client's cursor.
    public func park(_ waiter: any Waiter) -> DeliveryBatch? {
        park(waiter, after: cursor)
    }

    /// What is ready after `cursor` now (after a wake), filtered.
    public func read(after cursor: Timetoken) -> DeliveryBatch {
        filtered(broker.read(subscription, after: cursor))
    }

    /// `read(after:)` from the client's cursor.
    public func read() -> DeliveryBatch {
        read(after: cursor)
    }

    /// Whether `batch`, read after `cursor`, is empty only because the filter rejected all its
    /// messages: the poll should wait again from `batch.next` rather than answer.
    public func isFilteredOut(_ batch: DeliveryBatch, after cursor: Timetoken) -> Bool {
        filter != nil && batch.deliveries.isEmpty && batch.next != cursor
    }

    private func filtered(_ batch: DeliveryBatch) -> DeliveryBatch {
        guard let filter else { return batch }
        var batch = batch
        batch.deliveries.removeAll { !$0.message.passes(filter) }
        return batch
    }

    /// Counts what the transport has just written to the subscriber (for statistics and metrics).
    public func delivered(_ batch: DeliveryBatch) {
        keyset.counters.delivered(batch)
    }

    /// `delivered(_:)` into `tally`, which adds to the keyset's counters when flushed.
    public func delivered(_ batch: DeliveryBatch, into tally: inout DeliveryTally) {
        tally.add(batch, toCountersAt: countersAddress) { keyset.counters }
    }

    /// Unregisters `waiter` (through the kept channel state while it lives: no lookup).
    public func cancel(_ waiter: any Waiter) {
        broker.cancel(waiter, on: subscription, kept: channel)
    }

    /// Unregisters `waiter`, answered after a wake: where the wake already unregistered it
    /// (a one-channel poll on this node's own broker), nothing is looked up or locked.
    public func release(woken waiter: any Waiter) {
        broker.release(woken: waiter, on: subscription, kept: channel)
    }

    /// For a plain one-channel subscription: what makes two polls' answers identical besides the
    /// cursor, its channel's state (one channel of one keyset; compare by identity); nil otherwise.
    public var sharedChannel: ChannelState? { channel }
}
