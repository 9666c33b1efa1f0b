/// Where message actions are kept. Implementations: `MemoryMessageActionStore` here and
/// `SQLiteMessageActionStore` (in the history database) in `PubNodeHistorySQLite`.
///
/// Keysets are isolated by subscribe key. Reads take `now` (Unix nanoseconds) and leave out actions
/// expired at that time. Every call may block on the disk: the node calls it off the event loops.
public protocol MessageActionStore: Sendable {
    /// Adds `action` unless the same uuid already added the same type and value to the message
    /// (`duplicate`) or the message already holds `limit` actions (`full`); all in one transaction.
    func add(_ action: MessageAction, limit: Int, now: UInt64) throws(HistoryError) -> MessageActionAddOutcome
    /// Removes the action `actionTimetoken` of a message if `uuid` added it.
    func remove(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                uuid: String, now: UInt64) throws(HistoryError) -> MessageActionRemoveOutcome
    /// A channel's unexpired actions whose action timetoken lies in `range`: the newest `limit` of
    /// them, returned oldest first.
    func actions(subscribeKey: String, channel: String, range: HistoryRange, limit: Int, now: UInt64)
        throws(HistoryError) -> [MessageAction]
    /// Every unexpired action of exactly the channel's messages `messages` (timetokens, a page of
    /// history: at most 25), ordered by message, then action timetoken. Actions added to
    /// timetokens that are no message are never read here.
    func actions(subscribeKey: String, channel: String, messages: [UInt64], now: UInt64)
        throws(HistoryError) -> [MessageAction]
    /// Deletes the actions of the channel's messages whose timetokens lie in `range` (the messages
    /// were deleted); returns how many.
    @discardableResult
    func delete(subscribeKey: String, channel: String, messages range: HistoryRange) throws(HistoryError) -> Int
    /// Deletes every action of a subscribe key (its keyset is deleted); returns how many.
    @discardableResult
    func deleteAll(subscribeKey: String) throws(HistoryError) -> Int
    /// Deletes up to `limit` actions expired at `now`; returns how many.
    @discardableResult
    func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int
}

/// What adding an action did.
public enum MessageActionAddOutcome: Sendable, Equatable {
    /// Stored.
    case added
    /// The uuid already added this type and value to the message; nothing changed.
    case duplicate
    /// The message holds as many actions as allowed; nothing changed.
    case full
    /// The store holds as many actions as it may (a memory store's capacity); nothing changed.
    case storeFull
}

/// What removing an action did.
public enum MessageActionRemoveOutcome: Sendable, Equatable {
    /// Removed; the action as it was.
    case removed(MessageAction)
    /// No such action on that message.
    case notFound
    /// The action exists but another uuid added it; nothing changed.
    case wrongUUID
}
