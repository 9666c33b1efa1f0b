import PubNodeCore

/// A history store for tests that wraps another and forwards every call to it; a conforming type
/// writes only the calls it changes (to fail, stall or count them).
public protocol ForwardingHistoryStore: HistoryStore {
    /// The store calls are forwarded to.
    var inner: MemoryHistoryStore { get }
}

extension ForwardingHistoryStore {
    /// Forwards to `inner`.
    public func append(_ messages: [StoredMessage]) throws(HistoryError) { try inner.append(messages) }

    /// Forwards to `inner`.
    public func messages(subscribeKey: String, channel: String, query: HistoryQuery,
                         now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try inner.messages(subscribeKey: subscribeKey, channel: channel, query: query, now: now)
    }

    /// Forwards to `inner`.
    public func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int,
                      now: UInt64) throws(HistoryError) -> Int {
        try inner.count(subscribeKey: subscribeKey, channel: channel, after: after, limit: limit, now: now)
    }

    /// Forwards to `inner`.
    public func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        try inner.delete(subscribeKey: subscribeKey, channel: channel, range: range)
    }

    /// Forwards to `inner`.
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int { try inner.deleteAll(subscribeKey: subscribeKey) }

    /// Forwards to `inner`.
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int { try inner.expire(now: now, limit: limit) }

    /// Forwards to `inner`.
    public func newestTimetoken() throws(HistoryError) -> Timetoken? { try inner.newestTimetoken() }

    /// Forwards to `inner`.
    public func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        try inner.latest(perChannel: perChannel, after: after, now: now)
    }
}
