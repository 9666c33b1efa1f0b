import Foundation

extension PubNodeClient {
    /// Adds `channels` and channel `groups` to the subscription, from timetoken `at` if given.
    ///
    /// All subscribed names share one long-poll; adding names restarts it with the same cursor.
    /// With `withPresence`, their `-pnpres` presence channels are subscribed too.
    public func subscribe(to channels: [String], and groups: [String] = [], at timetoken: UInt64? = nil,
                          withPresence: Bool = false) async {
        await subscription.subscribe(channels: channels, groups: groups, at: timetoken, withPresence: withPresence)
    }

    /// Removes `channels` and `groups` from the subscription and sends a presence leave for them.
    public func unsubscribe(from channels: [String], and groups: [String] = []) async {
        await subscription.unsubscribe(channels: channels, groups: groups)
    }

    /// Unsubscribes from everything (with a leave) and disconnects.
    public func unsubscribeAll() async {
        await subscription.unsubscribeAll()
    }

    /// The connection state of the subscription.
    public var connectionStatus: ConnectionStatus {
        get async { await subscription.status }
    }

    /// The subscribed channels (without presence channels), sorted.
    public var subscribedChannels: [String] {
        get async { await subscription.change.channels }
    }

    /// The subscribed channel groups, sorted.
    public var subscribedChannelGroups: [String] {
        get async { await subscription.change.channelGroups }
    }

    /// Adds a listener; it is held strongly until removed.
    public func addListener(_ listener: any SubscriptionListener) {
        hub.add(listener)
    }

    /// Removes a listener.
    public func removeListener(_ listener: any SubscriptionListener) {
        hub.remove(listener)
    }

    /// A stream of every subscription event from now on; it ends when the consumer stops iterating.
    /// `bufferingNewest` bounds the events held for a slow consumer (`nil`: unbounded).
    public func events(bufferingNewest: Int? = nil) -> AsyncStream<SubscriptionEvent> {
        hub.stream(bufferingNewest: bufferingNewest)
    }
}
