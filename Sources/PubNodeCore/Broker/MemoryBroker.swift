/// The single-node message engine: one `ChannelHub` per subscribe key, kept by `MemoryHubs`
/// (shared with `MemoryPresence`).
public final class MemoryBroker: Broker {
    /// The hubs, shared with the presence store.
    public let hubs: MemoryHubs

    /// Serves the keysets of `hubs`.
    public init(hubs: MemoryHubs) {
        self.hubs = hubs
    }

    /// The broker of `subscribeKey`, if open.
    public func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { hubs.hub(subscribeKey).map(MemoryKeysetBroker.init) }

    /// Opens `keyset`'s broker (its hub is made on first use).
    public func open(_ keyset: Keyset) -> any KeysetBroker { MemoryKeysetBroker(hub: hubs.open(keyset)) }

    /// Drops `subscribeKey`'s channels, buffers and groups and wakes its parked polls.
    public func close(_ subscribeKey: String) { hubs.close(subscribeKey) }

    /// Every open keyset.
    public var allKeysets: [any KeysetBroker] { hubs.all.map(MemoryKeysetBroker.init) }

    /// The hub of `subscribeKey` (tests and in-process tools).
    public func hub(_ subscribeKey: String) -> ChannelHub? { hubs.hub(subscribeKey) }
}

struct MemoryKeysetBroker: KeysetBroker {
    let hub: ChannelHub

    var subscribeKey: String { hub.subscribeKey }

    func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        var kept: ChannelState?
        return publish(draft, keeping: &kept, beforeDelivery: beforeDelivery)
    }

    func publish(_ draft: PublishDraft, keeping kept: inout ChannelState?,
                 beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        let outcome = hub.publish(draft, keeping: &kept)
        beforeDelivery(outcome.message)
        outcome.waiters.wakeAll()
        return outcome.message
    }

    func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
              kept: ChannelState?) -> DeliveryBatch? {
        hub.park(waiter, on: subscription, after: cursor, kept: kept)
    }

    func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                         kept: ChannelState?) -> Bool {
        hub.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
    }

    func channelState(for subscription: Subscription) -> ChannelState? { hub.state(of: subscription) }

    func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch {
        hub.collect(subscription, after: cursor)
    }

    func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
        hub.cancel(waiter, on: subscription, kept: kept)
    }

    func release(woken waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
        hub.release(woken: waiter, on: subscription, kept: kept)
    }

    func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError) {
        try hub.addChannels(channels, toGroup: group)
    }

    func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError) {
        try hub.removeChannels(channels, fromGroup: group)
    }

    func deleteGroup(_ group: String) throws(PubNodeError) { try hub.deleteGroup(group) }

    func channels(inGroup group: String) throws(PubNodeError) -> [String] { try hub.channels(inGroup: group) }

    func groupNames() -> [String] { hub.groupNames() }

    func restore(_ messages: [PublishedMessage]) -> Int { hub.restore(messages) }

    func sweep() -> ChannelSweepReport { hub.sweep() }

    func statistics(busiest: Int) -> BrokerStatistics { hub.statistics(busiest: busiest) }
}
