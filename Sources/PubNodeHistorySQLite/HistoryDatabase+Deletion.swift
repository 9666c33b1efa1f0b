import GRDB
import PubNodeCore

/// The deletions the history database's tables share: a channel's rows in a timetoken range, a
/// subscribe key's rows, and a bounded batch of expired rows. Each table has `subscribe_key`,
/// `channel`, `expires_at` and an `id` primary key.
extension HistoryDatabase {
    /// A history table and the column holding the timetoken its ranges select on.
    struct Table {
        /// The table's name (a constant of this module, never request data).
        var name: String
        /// The timetoken column a range selects on.
        var timetoken: String

        /// Stored messages.
        static let messages = Table(name: "message", timetoken: "timetoken")
        /// Message actions, selected by the timetoken of their message.
        static let messageActions = Table(name: "message_action", timetoken: "message_tt")
    }

    /// Deletes a channel's rows of `table` whose timetoken lies in `range`; returns how many.
    func delete(from table: Table, subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        guard let bounds = range.bounds else { return 0 }
        return try changes("""
            DELETE FROM \(table.name) WHERE subscribe_key = ? AND channel = ? AND \(table.timetoken) BETWEEN ? AND ?
            """, [subscribeKey, channel, Self.integer(bounds.lowerBound), Self.integer(bounds.upperBound)])
    }

    /// Deletes every row of `table` of a subscribe key; returns how many.
    func deleteAll(from table: Table, subscribeKey: String) throws(HistoryError) -> Int {
        try changes("DELETE FROM \(table.name) WHERE subscribe_key = ?", [subscribeKey])
    }

    /// Deletes up to `limit` rows of `table` expired at `now`; returns how many.
    func expire(from table: Table, now: UInt64, limit: Int) throws(HistoryError) -> Int {
        try changes("""
            DELETE FROM \(table.name) WHERE id IN (SELECT id FROM \(table.name) WHERE expires_at <= ? LIMIT ?)
            """, [Self.integer(now), limit])
    }

    /// Runs one writing statement; returns how many rows it changed.
    private func changes(_ sql: String, _ arguments: StatementArguments) throws(HistoryError) -> Int {
        do {
            return try writer.write { db in
                try db.execute(sql: sql, arguments: arguments)
                return db.changesCount
            }
        } catch {
            throw Self.runtime(error)
        }
    }

    /// A timetoken or time as SQLite's signed 64-bit integer.
    static func integer(_ value: UInt64) -> Int64 { Int64(clamping: value) }
}
