import PostgresNIO
import PubNodeCore

/// The deletions the history tables share: a channel's rows in a timetoken range, a subscribe
/// key's rows, and a bounded batch of expired rows. Each table has `subscribe_key`, `channel`
/// and `expires_at`.
extension PostgresDatabase {
    /// A history table, the timetoken column its ranges select on, and its primary key.
    struct Table: Sendable {
        /// The table's name (a constant of this module, never request data).
        var name: String
        /// The timetoken column a range selects on.
        var timetoken: String
        /// The primary key's columns, comma-separated.
        var key: String

        /// Stored messages.
        static let messages = Table(name: "pubnode_message", timetoken: "timetoken", key: "subscribe_key, channel, timetoken")
        /// Message actions, selected by the timetoken of their message.
        static let messageActions = Table(name: "pubnode_message_action", timetoken: "message_tt",
                                          key: "subscribe_key, channel, message_tt, uuid, type, value")
    }

    /// Deletes a channel's rows of `table` whose timetoken lies in `range`; returns how many.
    func delete(from table: Table, subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        guard let bounds = range.bounds else { return 0 }
        var binds = PostgresBindings()
        binds.append(subscribeKey)
        binds.append(channel)
        binds.append(Int64(clamping: bounds.lowerBound))
        binds.append(Int64(clamping: bounds.upperBound))
        return try changes("""
            DELETE FROM \(table.name) WHERE subscribe_key = $1 AND channel = $2 AND \(table.timetoken) BETWEEN $3 AND $4
            """, binds)
    }

    /// Deletes every row of `table` of a subscribe key; returns how many.
    func deleteAll(from table: Table, subscribeKey: String) throws(HistoryError) -> Int {
        var binds = PostgresBindings()
        binds.append(subscribeKey)
        return try changes("DELETE FROM \(table.name) WHERE subscribe_key = $1", binds)
    }

    /// Deletes up to `limit` rows of `table` expired at `now`; returns how many.
    ///
    /// Safe on every node at once: the batch is chosen with `FOR UPDATE SKIP LOCKED`, so two
    /// sweeps never wait on or delete the same rows, and a row another sweep holds is deleted by
    /// it (or, if that sweep fails, by a later one): none is missed.
    func expire(from table: Table, now: UInt64, limit: Int) throws(HistoryError) -> Int {
        guard limit > 0 else { return 0 }
        var binds = PostgresBindings()
        binds.append(Int64(clamping: now))
        binds.append(Int64(limit))
        return try changes("""
            DELETE FROM \(table.name) WHERE (\(table.key)) IN (
                SELECT \(table.key) FROM \(table.name) WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
            """, binds)
    }

    /// Runs one deleting statement; returns how many rows it deleted.
    private func changes(_ sql: String, _ binds: PostgresBindings) throws(HistoryError) -> Int {
        Int(try scalar(PostgresQuery(unsafeSQL: "WITH gone AS (\(sql) RETURNING 1) SELECT COUNT(*) FROM gone", binds: binds)))
    }

    /// Runs a query answering one `bigint` (a count).
    func scalar(_ query: PostgresQuery) throws(HistoryError) -> Int64 {
        let logger = self.logger
        return try run { client in
            for try await value in try await client.query(query, logger: logger).decode(Int64.self) { return value }
            return 0
        }
    }
}
