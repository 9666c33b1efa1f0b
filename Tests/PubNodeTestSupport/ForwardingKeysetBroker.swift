import PubNodeCore

/// A keyset broker for tests that wraps another and forwards every call to it; a conforming type
/// writes only the calls it changes (to count them, or to keep no channel states).
/// `release(woken:on:kept:)` alone is not forwarded: a type that leaves it out gets the protocol's
/// default (a cancel), as a cluster's broker does.
public protocol ForwardingKeysetBroker: KeysetBroker {
    /// The broker calls are forwarded to.
    var inner: any KeysetBroker { get }
}

extension ForwardingKeysetBroker {
    /// Forwards to `inner`.
    public var subscribeKey: String { inner.subscribeKey }

    /// Forwards to `inner`.
    public func publish(_ draft: PublishDraft, beforeDelivery: (PublishedMessage) -> Void) -> PublishedMessage {
        inner.publish(draft, beforeDelivery: beforeDelivery)
    }

    /// Forwards to `inner`.
    public var acceptsSynchronously: Bool { inner.acceptsSynchronously }

    /// Forwards to `inner`.
    public func submit(_ draft: PublishDraft,
                       completion: @escaping @Sendable (Result<PublishedMessage, PubNodeError>) -> Void) {
        inner.submit(draft, completion: completion)
    }

    /// Forwards to `inner`.
    public var sharedGroups: (any SharedChannelGroups)? { inner.sharedGroups }

    /// Forwards to `inner`.
    public func park(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                     kept: ChannelState?) -> DeliveryBatch? {
        inner.park(waiter, on: subscription, after: cursor, kept: kept)
    }

    /// Forwards to `inner`.
    public func parkUnlessReady(_ waiter: any Waiter, on subscription: Subscription, after cursor: Timetoken,
                                kept: ChannelState?) -> Bool {
        inner.parkUnlessReady(waiter, on: subscription, after: cursor, kept: kept)
    }

    /// Forwards to `inner`.
    public func channelState(for subscription: Subscription) -> ChannelState? { inner.channelState(for: subscription) }

    /// Forwards to `inner`.
    public func read(_ subscription: Subscription, after cursor: Timetoken) -> DeliveryBatch {
        inner.read(subscription, after: cursor)
    }

    /// Forwards to `inner`.
    public func cancel(_ waiter: any Waiter, on subscription: Subscription, kept: ChannelState?) {
        inner.cancel(waiter, on: subscription, kept: kept)
    }

    /// Forwards to `inner`.
    public func addChannels(_ channels: [String], toGroup group: String) throws(PubNodeError) {
        try inner.addChannels(channels, toGroup: group)
    }

    /// Forwards to `inner`.
    public func removeChannels(_ channels: [String], fromGroup group: String) throws(PubNodeError) {
        try inner.removeChannels(channels, fromGroup: group)
    }

    /// Forwards to `inner`.
    public func deleteGroup(_ group: String) throws(PubNodeError) { try inner.deleteGroup(group) }

    /// Forwards to `inner`.
    public func channels(inGroup group: String) throws(PubNodeError) -> [String] { try inner.channels(inGroup: group) }

    /// Forwards to `inner`.
    public func groupNames() -> [String] { inner.groupNames() }

    /// Forwards to `inner`.
    public func restore(_ messages: [PublishedMessage]) -> Int { inner.restore(messages) }

    /// Forwards to `inner`.
    public func sweep() -> ChannelSweepReport { inner.sweep() }

    /// Forwards to `inner`.
    public func statistics(busiest: Int) -> BrokerStatistics { inner.statistics(busiest: busiest) }
}
