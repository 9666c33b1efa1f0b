extension MessageHistory {
    /// What a restore did.
    public struct RestoreReport: Sendable, Equatable {
        /// Messages put back into channel rings.
        public var messages = 0
        /// Channels that received messages.
        public var channels = 0
        /// The newest stored timetoken, below which the clock now never issues.
        public var newest: Timetoken?
    }

    /// Rebuilds each channel ring of `node` from history and advances its clock past the newest
    /// stored timetoken, so subscribers reconnecting with a cursor from before a restart catch up.
    ///
    /// Loads the latest `bufferSize` unexpired messages of each channel of the keysets that keep
    /// history, limited to the ring's own retention (`bufferRetentionSeconds`).
    public func restore(into node: Node) throws(HistoryError) -> RestoreReport {
        var report = RestoreReport()
        report.newest = try store.newestTimetoken()
        if let newest = report.newest { node.clock.advance(to: newest.rawValue) }
        let now = clock.nowNanoseconds()
        let retention = UInt64(max(0, node.limits.bufferRetentionSeconds)) * 1_000_000_000
        let floor = retention > 0 && now > retention ? Timetoken((now - retention) / 100) : .zero
        let rows = try store.latest(perChannel: node.limits.bufferSize, after: floor, now: now)
        var start = rows.startIndex
        while start < rows.endIndex {
            let key = rows[start].subscribeKey
            var end = start
            while end < rows.endIndex, rows[end].subscribeKey == key { end += 1 }
            if isEnabled(key), let broker = node.broker.keyset(key) {
                let messages = rows[start..<end].map { $0.published(region: node.region) }
                report.messages += broker.restore(messages)
                report.channels += Set(messages.map(\.channel)).count
            }
            start = end
        }
        return report
    }
}
