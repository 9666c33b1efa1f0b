extension Node {
    /// Expires old buffered messages and reclaims idle channels of every keyset.
    public func sweepChannels() -> ChannelSweepReport {
        registry.all.reduce(ChannelSweepReport()) { $0 + $1.broker.sweep() }
    }

    /// Times out expired uuids and emits due interval events in every keyset; the subscribers of
    /// those events are woken by the presence store.
    public func sweepPresence() -> PresenceSweepCounts {
        registry.all.reduce(PresenceSweepCounts()) { $0 + $1.presence.sweep() }
    }
}
