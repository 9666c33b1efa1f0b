import Foundation
import GRDB
import PubNodeCore

/// Message actions in the history database (`message_action`, migration "v4: message actions"),
/// so they are stored, backed up and deleted with the messages they belong to.
///
/// One row per action, unique by (subscribe key, channel, message timetoken, uuid, type, value);
/// listed by (subscribe key, channel, action timetoken) and read per message by (subscribe key,
/// channel, message timetoken). Every read leaves out rows expired at `now`.
public final class SQLiteMessageActionStore: MessageActionStore {
    /// The database.
    public let database: HistoryDatabase

    /// Creates a store over an opened database.
    public init(database: HistoryDatabase) {
        self.database = database
    }

    /// Adds the action in one transaction: refused as a duplicate or when the message is full.
    public func add(_ action: MessageAction, limit: Int, now: UInt64) throws(HistoryError) -> MessageActionAddOutcome {
        try run { () throws -> MessageActionAddOutcome in
            try database.writer.write { db in
                let key: StatementArguments = [action.subscribeKey, action.channel, HistoryDatabase.integer(action.messageTimetoken.rawValue)]
                let existing = try Row.fetchOne(db, sql: """
                    SELECT expires_at FROM message_action WHERE subscribe_key = ? AND channel = ? AND message_tt = ?
                        AND uuid = ? AND type = ? AND value = ?
                    """, arguments: key + [action.uuid, action.type, action.value])
                if let existing {
                    let expires: Int64? = existing[0]
                    guard let expires, expires <= HistoryDatabase.integer(now) else { return .duplicate }
                    try db.execute(sql: """
                        DELETE FROM message_action WHERE subscribe_key = ? AND channel = ? AND message_tt = ?
                            AND uuid = ? AND type = ? AND value = ?
                        """, arguments: key + [action.uuid, action.type, action.value])
                }
                let held = try Int.fetchOne(db, sql: """
                    SELECT COUNT(*) FROM (SELECT 1 FROM message_action WHERE subscribe_key = ? AND channel = ?
                        AND message_tt = ? AND (expires_at IS NULL OR expires_at > ?) LIMIT ?)
                    """, arguments: key + [HistoryDatabase.integer(now), limit]) ?? 0
                guard held < limit else { return .full }
                try db.execute(sql: """
                    INSERT INTO message_action (subscribe_key, channel, message_tt, action_tt, uuid, type, value, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: key + [HistoryDatabase.integer(action.actionTimetoken.rawValue), action.uuid, action.type,
                                           action.value, action.expiresAtNanoseconds.map(HistoryDatabase.integer)])
                return .added
            }
        }
    }

    /// Removes the action if `uuid` added it.
    public func remove(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                       uuid: String, now: UInt64) throws(HistoryError) -> MessageActionRemoveOutcome {
        try run { () throws -> MessageActionRemoveOutcome in
            try database.writer.write { db in
                let arguments: StatementArguments = [subscribeKey, channel, HistoryDatabase.integer(messageTimetoken.rawValue),
                                                     HistoryDatabase.integer(actionTimetoken.rawValue), HistoryDatabase.integer(now)]
                let found = try Self.decode(Row.fetchCursor(db, sql: Self.select + """
                    WHERE subscribe_key = ? AND channel = ? AND message_tt = ? AND action_tt = ?
                        AND (expires_at IS NULL OR expires_at > ?)
                    """, arguments: arguments))
                guard let action = found.first else { return .notFound }
                guard action.uuid == uuid else { return .wrongUUID }
                try db.execute(sql: """
                    DELETE FROM message_action WHERE subscribe_key = ? AND channel = ? AND message_tt = ? AND action_tt = ?
                    """, arguments: [subscribeKey, channel, HistoryDatabase.integer(messageTimetoken.rawValue),
                                     HistoryDatabase.integer(actionTimetoken.rawValue)])
                return .removed(action)
            }
        }
    }

    /// The newest `limit` unexpired actions in `range` (on action timetokens), oldest first.
    public func actions(subscribeKey: String, channel: String, range: HistoryRange, limit: Int, now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard limit > 0, let bounds = range.bounds else { return [] }
        return try run { () throws -> [MessageAction] in
            try database.writer.read { db in
                try Self.decode(Row.fetchCursor(db, sql: Self.select + """
                    WHERE subscribe_key = ? AND channel = ? AND action_tt BETWEEN ? AND ?
                        AND (expires_at IS NULL OR expires_at > ?)
                    ORDER BY action_tt DESC LIMIT ?
                    """, arguments: [subscribeKey, channel, HistoryDatabase.integer(bounds.lowerBound), HistoryDatabase.integer(bounds.upperBound),
                                     HistoryDatabase.integer(now), limit])).reversed()
            }
        }
    }

    /// The unexpired actions of exactly the messages `messages`, by message then action timetoken.
    public func actions(subscribeKey: String, channel: String, messages: [UInt64], now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard !messages.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: messages.count).joined(separator: ",")
        var arguments: StatementArguments = [subscribeKey, channel]
        arguments += StatementArguments(messages.map(HistoryDatabase.integer))
        arguments += [HistoryDatabase.integer(now)]
        return try run { () throws -> [MessageAction] in
            try database.writer.read { db in
                try Self.decode(Row.fetchCursor(db, sql: Self.select + """
                    WHERE subscribe_key = ? AND channel = ? AND message_tt IN (\(placeholders))
                        AND (expires_at IS NULL OR expires_at > ?)
                    ORDER BY message_tt, action_tt
                    """, arguments: arguments))
            }
        }
    }

    /// Deletes the actions of the messages in `range`.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, messages range: HistoryRange) throws(HistoryError) -> Int {
        try database.delete(from: .messageActions, subscribeKey: subscribeKey, channel: channel, range: range)
    }

    /// Deletes every action of a subscribe key.
    @discardableResult
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        try database.deleteAll(from: .messageActions, subscribeKey: subscribeKey)
    }

    /// Deletes up to `limit` expired actions.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        try database.expire(from: .messageActions, now: now, limit: limit)
    }

    private static let select = """
        SELECT subscribe_key, channel, message_tt, action_tt, uuid, type, value, expires_at FROM message_action

        """

    private static func decode(_ rows: RowCursor) throws -> [MessageAction] {
        var out: [MessageAction] = []
        while let row = try rows.next() {
            let expires: Int64? = row[7]
            out.append(MessageAction(subscribeKey: row[0], channel: row[1],
                                     messageTimetoken: Timetoken(UInt64(max(0, row[2] as Int64))),
                                     actionTimetoken: Timetoken(UInt64(max(0, row[3] as Int64))),
                                     type: row[5], value: row[6], uuid: row[4],
                                     expiresAtNanoseconds: expires.map { UInt64(max(0, $0)) }))
        }
        return out
    }


    private func run<T>(_ body: () throws -> T) throws(HistoryError) -> T {
        do { return try body() } catch { throw HistoryDatabase.runtime(error) }
    }
}
