import PostgresNIO
import PubNodeCore

/// Message actions in PostgreSQL (`pubnode_message_action`, migration "v2: message actions"),
/// beside the messages they belong to; the semantics are `SQLiteMessageActionStore`'s.
///
/// Adding takes a transaction-scoped advisory lock on the message, so two nodes adding to one
/// message at once cannot both pass the per-message limit or both add the same action.
public final class PostgresMessageActionStore: MessageActionStore {
    /// The database.
    public let database: PostgresDatabase

    /// Creates a store over a migrated database.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Adds the action in one transaction: refused as a duplicate or when the message is full.
    public func add(_ action: MessageAction, limit: Int, now: UInt64) throws(HistoryError) -> MessageActionAddOutcome {
        let logger = database.logger
        let key = action.subscribeKey, channel = action.channel, message = Self.integer(action.messageTimetoken.rawValue)
        let now = Self.integer(now), limit = Int64(limit)
        return try database.run { client in
            try await client.withTransaction(logger: logger) { connection -> MessageActionAddOutcome in
                let lock = "\(key)/\(channel)/\(message)"
                _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))", logger: logger).collect()
                let same: PostgresQuery = """
                    subscribe_key = \(key) AND channel = \(channel) AND message_tt = \(message)
                        AND uuid = \(action.uuid) AND type = \(action.type) AND value = \(action.value)
                    """
                var existing: Int64?? = nil
                for try await expires in try await connection.query(
                    Self.appending("SELECT expires_at FROM pubnode_message_action WHERE ", same), logger: logger)
                    .decode(Int64?.self) { existing = .some(expires) }
                if let existing {
                    guard let expires = existing, expires <= now else { return .duplicate }
                    _ = try await connection.query(Self.appending("DELETE FROM pubnode_message_action WHERE ", same),
                                               logger: logger).collect()
                }
                var held: Int64 = 0
                for try await count in try await connection.query("""
                    SELECT COUNT(*) FROM (SELECT 1 FROM pubnode_message_action WHERE subscribe_key = \(key)
                        AND channel = \(channel) AND message_tt = \(message)
                        AND (expires_at IS NULL OR expires_at > \(now)) LIMIT \(limit)) AS held
                    """, logger: logger).decode(Int64.self) { held = count }
                guard held < limit else { return .full }
                _ = try await connection.query("""
                    INSERT INTO pubnode_message_action (subscribe_key, channel, message_tt, action_tt, uuid, type, value,
                        expires_at) VALUES (\(key), \(channel), \(message), \(Self.integer(action.actionTimetoken.rawValue)),
                        \(action.uuid), \(action.type), \(action.value), \(action.expiresAtNanoseconds.map(Self.integer)))
                    """, logger: logger).collect()
                return .added
            }
        }
    }

    /// Removes the action if `uuid` added it: one `DELETE … RETURNING` (atomic); when it removed
    /// nothing, a read tells an unknown action from another uuid's.
    public func remove(subscribeKey: String, channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
                       uuid: String, now: UInt64) throws(HistoryError) -> MessageActionRemoveOutcome {
        let message = Self.integer(messageTimetoken.rawValue), actionTT = Self.integer(actionTimetoken.rawValue)
        let now = Self.integer(now)
        let removed = try decode("""
            DELETE FROM pubnode_message_action WHERE subscribe_key = \(subscribeKey) AND channel = \(channel)
                AND message_tt = \(message) AND action_tt = \(actionTT) AND uuid = \(uuid)
                AND (expires_at IS NULL OR expires_at > \(now))
            RETURNING subscribe_key, channel, message_tt, action_tt, uuid, type, value, expires_at
            """)
        if let action = removed.first { return .removed(action) }
        let found = try actions("""
            WHERE subscribe_key = \(subscribeKey) AND channel = \(channel) AND message_tt = \(message)
                AND action_tt = \(actionTT) AND (expires_at IS NULL OR expires_at > \(now))
            """)
        return found.isEmpty ? .notFound : .wrongUUID
    }

    /// The newest `limit` unexpired actions in `range` (on action timetokens), oldest first.
    public func actions(subscribeKey: String, channel: String, range: HistoryRange, limit: Int, now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard limit > 0, let bounds = range.bounds else { return [] }
        return try actions("""
            WHERE subscribe_key = \(subscribeKey) AND channel = \(channel)
                AND action_tt BETWEEN \(Self.integer(bounds.lowerBound)) AND \(Self.integer(bounds.upperBound))
                AND (expires_at IS NULL OR expires_at > \(Self.integer(now)))
            ORDER BY action_tt DESC LIMIT \(Int64(limit))
            """).reversed()
    }

    /// The unexpired actions of exactly the messages `messages`, by message then action timetoken.
    public func actions(subscribeKey: String, channel: String, messages: [UInt64], now: UInt64)
        throws(HistoryError) -> [MessageAction] {
        guard !messages.isEmpty else { return [] }
        return try actions("""
            WHERE subscribe_key = \(subscribeKey) AND channel = \(channel) AND message_tt = ANY(\(messages.map(Self.integer)))
                AND (expires_at IS NULL OR expires_at > \(Self.integer(now)))
            ORDER BY message_tt, action_tt
            """)
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

    /// Deletes up to `limit` expired actions, skipping rows another node's sweep holds.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        try database.expire(from: .messageActions, now: now, limit: limit)
    }

    /// The actions `condition` (a WHERE clause with its order and limit) selects.
    private func actions(_ condition: PostgresQuery) throws(HistoryError) -> [MessageAction] {
        try decode(Self.appending("""
            SELECT subscribe_key, channel, message_tt, action_tt, uuid, type, value, expires_at FROM pubnode_message_action

            """, condition))
    }

    /// Runs `query`, whose rows are actions' eight columns in table order.
    private func decode(_ query: PostgresQuery) throws(HistoryError) -> [MessageAction] {
        let logger = database.logger
        return try database.run { client in
            var out: [MessageAction] = []
            for try await (key, channel, message, action, uuid, type, value, expires) in try await client.query(
                query, logger: logger).decode((String, String, Int64, Int64, String, String, String, Int64?).self) {
                out.append(MessageAction(subscribeKey: key, channel: channel, messageTimetoken: Timetoken(UInt64(max(0, message))),
                                         actionTimetoken: Timetoken(UInt64(max(0, action))), type: type, value: value,
                                         uuid: uuid, expiresAtNanoseconds: expires.map { UInt64(max(0, $0)) }))
            }
            return out
        }
    }

    /// `prefix` (constant SQL) followed by `query`, its parameters kept.
    private static func appending(_ prefix: String, _ query: PostgresQuery) -> PostgresQuery {
        PostgresQuery(unsafeSQL: prefix + query.sql, binds: query.binds)
    }

    private static func integer(_ value: UInt64) -> Int64 { Int64(clamping: value) }
}
