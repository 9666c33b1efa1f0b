/// Durable message history, as the domain sees it. Implementations: `MemoryHistoryStore` here and
/// `SQLiteHistoryStore` in `PubNodeHistorySQLite`.
///
/// Every read takes `now` (Unix nanoseconds) and leaves out messages expired at that time, so an
/// expired message disappears from every answer at once, before any sweep removes it.
/// Reads return messages oldest first.
public protocol HistoryStore: Sendable {
    /// Stores `messages` in one transaction: all or none. A timetoken already stored for the same
    /// channel is ignored.
    func append(_ messages: [StoredMessage]) throws(HistoryError)
    /// One page of a channel's unexpired messages (see `HistoryQuery`), oldest first.
    func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64)
        throws(HistoryError) -> [StoredMessage]
    /// How many unexpired messages of a channel have a timetoken greater than `after`, up to `limit`.
    func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64)
        throws(HistoryError) -> Int
    /// Deletes a channel's messages in `range`; returns how many were deleted.
    @discardableResult
    func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int
    /// Deletes every message of a subscribe key (its keyset is deleted); returns how many.
    @discardableResult
    func deleteAll(subscribeKey: String) throws(HistoryError) -> Int
    /// Deletes up to `limit` messages expired at `now`; returns how many.
    @discardableResult
    func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int
    /// The greatest timetoken ever stored (deleted or expired ones included), if any.
    func newestTimetoken() throws(HistoryError) -> Timetoken?
    /// The newest `perChannel` unexpired messages of every channel with a timetoken greater than
    /// `after`, ordered by subscribe key, channel, then timetoken (for rebuilding channel rings).
    func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage]
}
