extension PresenceTracker {
    /// What one presence sweep did.
    public struct SweepCounts: Sendable, Equatable {
        /// Uuids removed from a channel because their timeout passed.
        public var timedOut = 0
        /// `interval` events emitted.
        public var intervals = 0
        /// State kept for channels the uuid never joined, dropped for age.
        public var expiredStates = 0

        /// Nothing done.
        public init() {}
    }

    /// Times out every entry whose timeout has passed (`timeout` events) and emits the `interval`
    /// events that are due.
    ///
    /// Users are visited one at a time, each under its own mutex only, so subscribes, heartbeats
    /// and publishes carry on while a large sweep runs; a user is skipped without work until its
    /// earliest expiry.
    public func sweep(emit: (PresenceEvent) -> Void) -> SweepCounts {
        let now = clock.nowNanoseconds()
        var counts = SweepCounts()
        for user in users.values() {
            let emptied = user.inner.withLock { inner -> Bool in
                guard !inner.reclaimed, inner.nextExpiry <= now else { return false }
                var next = UInt64.max
                var expired: [(String, UserPresence.Entry)] = []
                for (channel, entry) in inner.entries {
                    if entry.expiresAt <= now { expired.append((channel, entry)) } else { next = min(next, entry.expiresAt) }
                }
                // Channel order is fixed so that a user's timeouts are reported in a stable order.
                for (channel, entry) in expired.sorted(by: { $0.0 < $1.0 }) {
                    inner.entries[channel] = nil
                    if entry.present {
                        depart(user.uuid, from: channel, as: .timeout, now: now, emit: emit)
                        counts.timedOut += 1
                    } else {
                        counts.expiredStates += 1
                    }
                }
                inner.nextExpiry = next
                return inner.entries.isEmpty
            }
            if emptied { reclaimIfEmpty(user: user.uuid) }
        }
        counts.intervals = emitIntervals(now: now, emit: emit)
        return counts
    }
}
