extension ChannelHub {
    /// What one sweep did.
    public struct SweepReport: Sendable, Equatable {
        /// Messages dropped for age.
        public var expiredMessages = 0
        /// Channels reclaimed (empty, unsubscribed, in no group, idle).
        public var reclaimedChannels = 0
        /// Empty group and wildcard states reclaimed.
        public var reclaimedTopics = 0
    }

    /// Expires old buffered messages and reclaims idle, empty channels so memory tracks live use.
    public func sweep() -> SweepReport {
        var report = SweepReport()
        let now = clock.nowNanoseconds()
        let retention = UInt64(limits.bufferRetentionSeconds) * 1_000_000_000
        let idle = UInt64(limits.idleChannelSeconds) * 1_000_000_000
        var reclaimed: [String] = []
        channels.removeAll { name, state in
            state.inner.withLock { inner in
                if retention > 0, now > retention {
                    report.expiredMessages += inner.ring.expire(before: now - retention)
                }
                guard inner.ring.isEmpty, inner.waiters.isEmpty, inner.groups.isEmpty,
                      now >= inner.lastActivityNanoseconds &+ idle else { return false }
                inner.reclaimed = true
                reclaimed.append(name)
                return true
            }
        }
        report.reclaimedChannels = reclaimed.count
        for name in reclaimed {
            for pattern in NameRules.wildcardPatterns(matching: name) {
                prefixes.get(pattern)?.inner.withLock { inner in
                    if channels.get(name) == nil { inner.members.remove(name) }
                }
            }
        }
        for map in [groups, prefixes] {
            report.reclaimedTopics += map.removeAll { _, state in
                state.inner.withLock { inner in
                    guard inner.members.isEmpty, inner.waiters.isEmpty else { return false }
                    inner.reclaimed = true
                    return true
                }
            }
        }
        return report
    }

    /// Number of live channel states (for metrics and tests).
    public var channelCount: Int { channels.count }
}
