extension ChannelHub {
    /// What one sweep did.
    public typealias SweepReport = ChannelSweepReport

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
                      now >= inner.lastActivityNanoseconds &+ idle else {
                    inner.waiters.compact()
                    return false
                }
                state.reclaim(&inner)
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
                    guard inner.members.isEmpty, inner.waiters.isEmpty else {
                        inner.waiters.compact()
                        return false
                    }
                    inner.reclaimed = true
                    return true
                }
            }
        }
        return report
    }

    /// Waiters parked on `channel` itself (for metrics and tests).
    public func waiterCount(on channel: String) -> Int {
        channels.get(channel)?.inner.withLock { $0.waiters.count } ?? 0
    }

    /// Number of live channel states (for metrics and tests).
    public var channelCount: Int { channels.count }
}
