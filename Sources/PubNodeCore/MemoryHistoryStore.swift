import Synchronization

/// History kept in memory, for tests and for nodes that need no durability.
public final class MemoryHistoryStore: HistoryStore {
    private struct Key: Hashable {
        var subscribeKey: String
        var channel: String
    }

    private struct State {
        /// Each channel's messages in timetoken order.
        var channels: [Key: [StoredMessage]] = [:]
        var newest: Timetoken?
    }

    private let state = Mutex(State())

    /// Creates an empty store.
    public init() {}

    /// Inserts each message in timetoken order, ignoring timetokens already stored.
    public func append(_ messages: [StoredMessage]) throws(HistoryError) {
        state.withLock { state in
            for message in messages {
                let key = Key(subscribeKey: message.subscribeKey, channel: message.channel)
                var list = state.channels[key] ?? []
                let index = Self.firstIndex(in: list) { $0.timetoken >= message.timetoken }
                if index < list.count, list[index].timetoken == message.timetoken { continue }
                list.insert(message, at: index)
                state.channels[key] = list
                state.newest = max(state.newest ?? message.timetoken, message.timetoken)
            }
        }
    }

    /// A page of unexpired messages in the query's range, oldest first.
    public func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64)
        throws(HistoryError) -> [StoredMessage] {
        guard query.limit > 0 else { return [] }
        let matching = live(subscribeKey, channel, now).filter { query.range.contains($0.timetoken) }
        return Array(query.fromOldest ? matching.prefix(query.limit) : matching.suffix(query.limit))
    }

    /// Unexpired messages after `after`, capped at `limit`.
    public func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64)
        throws(HistoryError) -> Int {
        min(limit, live(subscribeKey, channel, now).count { $0.timetoken > after })
    }

    /// Deletes the channel's messages in `range`.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        state.withLock { state in
            let key = Key(subscribeKey: subscribeKey, channel: channel)
            guard let list = state.channels[key] else { return 0 }
            let kept = list.filter { !range.contains($0.timetoken) }
            state.channels[key] = kept.isEmpty ? nil : kept
            return list.count - kept.count
        }
    }

    /// Deletes every message of a subscribe key.
    @discardableResult
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        state.withLock { state in
            var removed = 0
            for key in state.channels.keys where key.subscribeKey == subscribeKey {
                removed += state.channels.removeValue(forKey: key)?.count ?? 0
            }
            return removed
        }
    }

    /// Deletes up to `limit` expired messages.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        state.withLock { state in
            var removed = 0
            for (key, list) in state.channels where removed < limit {
                var kept: [StoredMessage] = []
                kept.reserveCapacity(list.count)
                for message in list {
                    if removed < limit, message.isExpired(at: now) { removed += 1 } else { kept.append(message) }
                }
                state.channels[key] = kept.isEmpty ? nil : kept
            }
            return removed
        }
    }

    /// The greatest timetoken ever stored.
    public func newestTimetoken() throws(HistoryError) -> Timetoken? {
        state.withLock { $0.newest }
    }

    /// The newest `perChannel` unexpired messages after `after` of every channel.
    public func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        let channels = state.withLock { $0.channels }
        let keys = channels.keys.sorted { ($0.subscribeKey, $0.channel) < ($1.subscribeKey, $1.channel) }
        return keys.flatMap { key in
            channels[key, default: []].filter { $0.timetoken > after && !$0.isExpired(at: now) }.suffix(perChannel)
        }
    }

    private func live(_ subscribeKey: String, _ channel: String, _ now: UInt64) -> [StoredMessage] {
        let list = state.withLock { $0.channels[Key(subscribeKey: subscribeKey, channel: channel)] ?? [] }
        return list.filter { !$0.isExpired(at: now) }
    }

    private static func firstIndex(in list: [StoredMessage], where predicate: (StoredMessage) -> Bool) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(list[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
