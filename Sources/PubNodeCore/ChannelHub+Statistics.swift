extension ChannelHub {
    /// How far back a channel's recent publish rate looks.
    static let rateWindowNanoseconds: UInt64 = 10_000_000_000

    /// The hub's channel and group counts and its `limit` busiest channels.
    ///
    /// Visits every channel under its own lock, one at a time (never all at once): meant for the
    /// operator's endpoints, not for a request path.
    public func statistics(busiest limit: Int) -> BrokerStatistics {
        // Counts alone (for metrics) need no visit.
        guard limit > 0 else { return BrokerStatistics(channels: channels.count, groups: groupsWithChannels, busiest: []) }
        let now = clock.nowNanoseconds()
        var all: [ChannelStatistics] = []
        for state in channels.values() {
            let figures = state.inner.withLock { inner -> ChannelStatistics? in
                guard !inner.reclaimed else { return nil }
                return ChannelStatistics(name: state.name, publishes: inner.published,
                                         perSecond: inner.ring.recentRate(now: now, window: Self.rateWindowNanoseconds),
                                         buffered: inner.ring.count, parked: inner.waiters.count,
                                         lastTimetoken: inner.ring.newest)
            }
            if let figures { all.append(figures) }
        }
        let top = Array(all.sorted(by: ChannelStatistics.busier).prefix(limit))
        return BrokerStatistics(channels: all.count, groups: groupsWithChannels, busiest: top)
    }
}

extension MessageRing {
    /// Messages per second published over the last `window` nanoseconds before `now`, as far as
    /// the buffer shows: when every buffered message is that recent (a busy channel whose ring
    /// holds less than the window), the rate is taken over the time the ring spans instead.
    public func recentRate(now: UInt64, window: UInt64) -> Double {
        let since = now > window ? now - window : 0
        var recent = 0
        for message in storage.reversed() {
            guard message.publishedAtNanoseconds >= since else { break }
            recent += 1
        }
        guard recent > 0 else { return 0 }
        if recent == capacity, let oldest = storage.first {
            let span = max(now - min(now, oldest.publishedAtNanoseconds), 1_000_000)
            return Double(recent) / (Double(span) / 1e9)
        }
        return Double(recent) / (Double(window) / 1e9)
    }
}
