import Logging
import NIOCore
import PubNodeCore

/// The cluster's message engine: nodes on one Redis behave as one node.
///
/// Publishes go through one Lua script (`RedisChannelLog`) that issues the timetoken, appends to
/// the channel's shared buffer and publishes it; each node parks polls in its own `ChannelHub`s
/// (kept by `MemoryHubs`, shared with presence) and receives a channel only while it has
/// subscribers of it. Channel groups live in Redis (`RedisSharedGroups`). `Docs/cluster.md`
/// describes the design.
public final class RedisBroker: Broker {
    /// The local hubs, shared with the presence store.
    public let hubs: MemoryHubs
    /// The connections to Redis.
    public let link: RedisLink
    let cluster: RedisCluster
    let limits: Limits

    /// A broker on the Redis at `address`, running its connections on `loop`. `wall`, when given,
    /// is the node clock's wall clock: it is set to Redis's time line at each connection.
    /// `idleSeconds` is how long a channel nobody waits on stays received.
    public init(address: RedisAddress, loop: any EventLoop, hubs: MemoryHubs, limits: Limits, clock: TimetokenClock,
                wall: ClusterWallClock?, region: Int = 1, prefix: String = "pubnode", idleSeconds: Int = 60,
                logger: Logger) {
        let log = RedisChannelLog(prefix: prefix, capacity: limits.bufferSize,
                                  ttlSeconds: max(limits.bufferRetentionSeconds, 60))
        let cluster = RedisCluster(hubs: hubs, log: log, clock: clock, wall: wall, region: region,
                                   idleNanoseconds: UInt64(max(idleSeconds, 1)) * 1_000_000_000, logger: logger)
        self.hubs = hubs
        self.cluster = cluster
        self.limits = limits
        self.link = RedisLink(address: address, loop: loop, logger: logger,
                              onPush: { link, push in cluster.received(push, link: link) },
                              onUp: { link in cluster.linkUp(link) }, onTime: { cluster.redisTime($0) })
    }

    /// Starts connecting to Redis (and reconnecting whenever the connection drops).
    public func start() { link.start() }

    /// Closes the connections.
    public func stop() async { await link.stop() }

    /// Whether Redis is reachable: publishes answer 503 and the node is not ready while it is not.
    public var isUp: Bool { link.isUp }

    /// The broker of `subscribeKey`, if open.
    public func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { hubs.hub(subscribeKey).map(keysetBroker) }

    /// Opens `keyset`'s broker.
    public func open(_ keyset: Keyset) -> any KeysetBroker { keysetBroker(hubs.open(keyset)) }

    /// Drops `subscribeKey`'s local state and wakes its parked polls (the shared buffers stay in
    /// Redis until they expire).
    public func close(_ subscribeKey: String) { hubs.close(subscribeKey) }

    /// Every open keyset.
    public var allKeysets: [any KeysetBroker] { hubs.all.map(keysetBroker) }

    private func keysetBroker(_ hub: ChannelHub) -> any KeysetBroker {
        RedisKeysetBroker(hub: hub, cluster: cluster, link: link, limits: limits)
    }
}

/// One subscribe key on the cluster.
struct RedisKeysetBroker: KeysetBroker {
    let hub: ChannelHub
    let cluster: RedisCluster
    let link: RedisLink
    let limits: Limits

    var subscribeKey: String { hub.subscribeKey }

    var acceptsSynchronously: Bool { false }

    /// Not used in a cluster (`acceptsSynchronously` is false): the message is submitted, and the
    /// returned copy carries a local timetoken, not the cluster's.
    func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        assertionFailure("a cluster accepts publishes with submit")
        submit(draft) { _ in }
        return PublishedMessage(draft: draft, timetoken: cluster.clock.next(), subscribeKey: subscribeKey,
                                region: cluster.region, publishedAtNanoseconds: cluster.clock.nowNanoseconds())
    }

    func submit(_ draft: PublishDraft, completion: @escaping @Sendable (Result<PublishedMessage, PubNodeError>) -> Void) {
        let connection: RedisConnection
        do { connection = try link.connection() } catch {
            completion(.failure(error))
            return
        }
        let now = cluster.clock.nowNanoseconds()
        let (subscribeKey, region) = (subscribeKey, cluster.region)
        cluster.log.append(ClusterRecord(draft: draft, publishedAtNanoseconds: now), subscribeKey: subscribeKey,
                           channel: draft.channel, on: connection).whenComplete { result in
            completion(result.map { timetoken in
                PublishedMessage(draft: draft, timetoken: timetoken, subscribeKey: subscribeKey, region: region,
                                 publishedAtNanoseconds: now)
            }.mapError { .unavailable("\($0)") })
        }
    }

    func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
              kept: ChannelState?) -> DeliveryBatch? {
        parkOnceReceived(waiter, on: subscription, waiting: nil, found: { $0 != nil }) {
            hub.park(waiter, on: subscription, after: cursor, kept: kept)
        }
    }

    func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                         kept: ChannelState?) -> Bool {
        parkOnceReceived(waiter, on: subscription, waiting: false, found: { $0 }) {
            hub.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
        }
    }

    func channelState(for subscription: Subscription) -> ChannelState? { hub.state(of: subscription) }

    /// Runs `park` (a hub's park or question, which registers `waiter` unless it `found` messages)
    /// only once everything `subscription` listens to is received here, and answers `waiting` (the
    /// waiter left to be woken) until then.
    private func parkOnceReceived<Result>(_ waiter: any Waiter, on subscription: Subscription, waiting: Result,
                                          found: (Result) -> Bool, _ park: () -> Result) -> Result {
        let needed = cluster.topics(of: subscription, subscribeKey: subscribeKey, hub: hub)
        // Until everything it listens to is received here, the poll waits (its buffers would be
        // incomplete); it is woken when they are, and parks again.
        guard cluster.ensure(needed, waiter: waiter, link: link) else { return waiting }
        let ready = park()
        // A reconnection may have begun while it read: what it found may lack what the catch-up
        // is about to merge, so it waits for that instead.
        guard found(ready), !cluster.isReady(needed) else { return ready }
        hub.cancel(waiter, on: subscription)
        return cluster.ensure(needed, waiter: waiter, link: link) ? park() : waiting
    }

    func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch {
        // A woken poll reads only when everything it listens to is received: a topic still
        // catching up may yet merge messages older than what the others hold.
        let needed = cluster.topics(of: subscription, subscribeKey: subscribeKey, hub: hub)
        let nothing = DeliveryBatch(deliveries: [], next: cursor)
        guard cluster.isReady(needed) else { return nothing }
        let batch = hub.collect(subscription, after: cursor)
        return cluster.isReady(needed) ? batch : nothing
    }

    // `release(woken:on:kept:)` keeps the default, a full cancel: this broker also wakes polls from outside
    // the hub (those `RedisCluster.ensure` queued until their topics are received, which `warm`
    // wakes), where the hub's reasoning that a wake took the poll off its channel does not apply.
    func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
        hub.cancel(waiter, on: subscription, kept: kept)
    }

    // The local mirror of the groups this node receives; changes go through `sharedGroups`.
    func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError) {
        try hub.addChannels(channels, toGroup: group)
    }

    func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError) {
        try hub.removeChannels(channels, fromGroup: group)
    }

    func deleteGroup(_ group: String) throws(PubNodeError) { try hub.deleteGroup(group) }

    func channels(inGroup group: String) throws(PubNodeError) -> [String] { try hub.channels(inGroup: group) }

    func groupNames() -> [String] { hub.groupNames() }

    var sharedGroups: (any SharedChannelGroups)? {
        RedisSharedGroups(subscribeKey: subscribeKey, cluster: cluster, link: link, limits: limits)
    }

    /// The buffers live in Redis: nothing is restored from a node's history.
    func restore(_ messages: [PublishedMessage]) -> Int { 0 }

    func sweep() -> ChannelSweepReport {
        cluster.sweepIdle(subscribeKey: subscribeKey, link: link)
        return hub.sweep()
    }

    func statistics(busiest: Int) -> BrokerStatistics { hub.statistics(busiest: busiest) }
}
