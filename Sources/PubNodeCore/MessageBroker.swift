/// Publishing and delivery for one keyset, as the HTTP front sees it.
///
/// `ChannelHub` is the in-memory implementation. A Redis-backed broker later implements the same
/// surface by relaying publishes between nodes while each node keeps a hub for its local waiters.
public protocol KeysetBroker: Sendable {
    /// Buffers a message and returns it with the local waiters to wake.
    func publish(_ draft: PublishDraft) -> ChannelHub.PublishOutcome
    /// Registers a waiter, returning ready messages at once or nil when it stays parked.
    func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken)
        -> (deliveries: [Delivery], next: Timetoken)?
    /// Messages after `cursor`, oldest first, capped.
    func collect(_ subscription: Subscription, after cursor: Timetoken) -> (deliveries: [Delivery], next: Timetoken)
    /// Unregisters a waiter.
    func cancel(_ waiter: any Waiter, on subscription: Subscription)
    /// The handshake cursor.
    func currentTimetoken() -> Timetoken
    /// Adds channels to a group.
    func addChannels(_ names: [String], toGroup group: String) throws(PubNodeError)
    /// Removes channels from a group.
    func removeChannels(_ names: [String], fromGroup group: String) throws(PubNodeError)
    /// Deletes a group.
    func deleteGroup(_ group: String) throws(PubNodeError)
    /// Lists a group's channels.
    func channels(inGroup group: String) throws(PubNodeError) -> [String]
    /// Lists the groups that have channels.
    func groupNames() -> [String]
    /// Expires buffered messages and reclaims idle state.
    func sweep() -> ChannelHub.SweepReport
    /// The presence rules of this keyset.
    var presenceSettings: PresenceSettings { get }
    /// Refreshes presence for a subscribe or heartbeat; returns the waiters its events woke.
    func heartbeat(_ update: PresenceUpdate) throws(PubNodeError) -> [any Waiter]
    /// Removes a uuid from channels and the channels of groups; returns the waiters its events woke.
    func leave(uuid: String, channels: [String], groups: [String]) -> [any Waiter]
    /// Sets a uuid's state on channels and the channels of groups.
    func setState(uuid: String, channels: [String], groups: [String], state: [UInt8])
        throws(PubNodeError) -> (state: [UInt8]?, waiters: [any Waiter])
    /// A uuid's state on the channels named and, where it has one, on the channels of groups.
    func state(of uuid: String, channels: [String], groups: [String]) -> [(channel: String, state: [UInt8]?)]
    /// Occupancy of channels and of the channels of groups.
    func hereNow(channels: [String], groups: [String], query: OccupancyQuery) -> [ChannelOccupancy]
    /// Occupancy of every occupied channel.
    func hereNow(query: OccupancyQuery) -> [ChannelOccupancy]
    /// The channels a uuid is present on.
    func whereNow(uuid: String) -> [String]
    /// Times out expired uuids and emits due interval events.
    func sweepPresence() -> ChannelHub.PresenceSweepReport
}

extension ChannelHub: KeysetBroker {}

/// Finds the broker of a subscribe key.
public protocol MessageBroker: Sendable {
    /// The broker for `subscribeKey`, or nil when the key is not configured.
    func keyset(_ subscribeKey: String) -> (any KeysetBroker)?
    /// Every keyset's broker, for sweeping and draining.
    var allKeysets: [any KeysetBroker] { get }
}

/// The in-memory broker: one `ChannelHub` per configured subscribe key, fixed at start.
public final class MemoryBroker: MessageBroker {
    private let hubs: [String: ChannelHub]

    /// Creates hubs for `keysets` sharing one timetoken clock; `presenceObserver` gives each
    /// keyset's observer of presence changes (the hooks), if any.
    public init(keysets: [Keyset], limits: Limits, clock: TimetokenClock, region: Int = 1,
                presenceObserver: (String) -> (@Sendable (PresenceEvent) -> Void)? = { _ in nil }) {
        var hubs: [String: ChannelHub] = [:]
        for keyset in keysets where hubs[keyset.subscribeKey] == nil {
            hubs[keyset.subscribeKey] = ChannelHub(subscribeKey: keyset.subscribeKey, limits: limits,
                                                   clock: clock, region: region,
                                                   presence: keyset.presenceSettings(limits),
                                                   presenceObserver: presenceObserver(keyset.subscribeKey))
        }
        self.hubs = hubs
    }

    /// The hub of `subscribeKey`.
    public func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { hubs[subscribeKey] }

    /// Every hub.
    public var allKeysets: [any KeysetBroker] { Array(hubs.values) }
}
