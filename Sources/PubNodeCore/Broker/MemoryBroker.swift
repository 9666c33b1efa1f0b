/// The single-node message engine: one `ChannelHub` per configured subscribe key, fixed at start
/// and looked up in an immutable dictionary.
public final class MemoryBroker: Broker {
    private let brokers: [String: MemoryKeysetBroker]

    /// Serves `hubs` (keyed by their subscribe key).
    public init(hubs: [ChannelHub]) {
        var brokers: [String: MemoryKeysetBroker] = [:]
        for hub in hubs where brokers[hub.subscribeKey] == nil {
            brokers[hub.subscribeKey] = MemoryKeysetBroker(hub: hub)
        }
        self.brokers = brokers
    }

    /// The broker of `subscribeKey`.
    public func keyset(_ subscribeKey: String) -> (any KeysetBroker)? { brokers[subscribeKey] }

    /// Every keyset.
    public var allKeysets: [any KeysetBroker] { Array(brokers.values) }

    /// The hub of `subscribeKey` (for inspection in tests and tools).
    public func hub(_ subscribeKey: String) -> ChannelHub? { brokers[subscribeKey]?.hub }
}

/// One keyset of the in-memory engine: its hub's rings, groups and waiters, waking the waiters a
/// publish takes.
struct MemoryKeysetBroker: KeysetBroker {
    let hub: ChannelHub

    var subscribeKey: String { hub.subscribeKey }

    func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        let outcome = hub.publish(draft)
        beforeDelivery(outcome.message)
        outcome.waiters.wakeAll()
        return outcome.message
    }

    func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch? {
        hub.park(waiter, on: subscription, after: cursor).map { DeliveryBatch(deliveries: $0.deliveries, next: $0.next) }
    }

    func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch {
        let found = hub.collect(subscription, after: cursor)
        return DeliveryBatch(deliveries: found.deliveries, next: found.next)
    }

    func cancel(_ waiter: any Waiter, on subscription: Subscription) {
        hub.cancel(waiter, on: subscription)
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
}
