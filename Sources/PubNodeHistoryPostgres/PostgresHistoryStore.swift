import NIOCore
import PostgresNIO
import PubNodeCore

/// History in PostgreSQL, shared by every node of a cluster: one row per message in
/// `pubnode_message`, keyed by `(subscribe_key, channel, timetoken)`, payload and meta kept as the
/// published JSON bytes. The semantics are `SQLiteHistoryStore`'s (the shared store tests run
/// over both).
///
/// Every call blocks its caller until PostgreSQL answers or the database's deadline passes (see
/// `PostgresDatabase` for the bridge and its invariant); the node calls it off the event loops.
public final class PostgresHistoryStore: HistoryStore {
    /// The database.
    public let database: PostgresDatabase

    /// Creates a store over a migrated database.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Rows inserted by one statement (9 parameters each, well under PostgreSQL's 65,535).
    static let rowsPerInsert = 1000

    /// Inserts the batch atomically (a timetoken already stored is ignored) and raises the stored
    /// newest timetoken. A batch of up to `rowsPerInsert` rows is one statement (one round trip,
    /// its own transaction); a larger one is several in one transaction.
    public func append(_ messages: [StoredMessage]) throws(HistoryError) {
        guard !messages.isEmpty else { return }
        let logger = database.logger
        let newest = Self.integer(messages.map(\.timetoken.rawValue).max() ?? 0)
        let starts = Array(stride(from: 0, to: messages.count, by: Self.rowsPerInsert))
        // The last statement also raises the newest timetoken, so the one shared row is locked
        // only at the end of the transaction.
        let inserts = starts.map { start in
            Self.insert(messages[start..<min(messages.count, start + Self.rowsPerInsert)],
                        newest: start == starts.last ? newest : nil)
        }
        try database.run { client in
            guard inserts.count > 1 else {
                _ = try await client.query(inserts[0], logger: logger).collect()
                return
            }
            try await client.withTransaction(logger: logger) { connection in
                for insert in inserts { _ = try await connection.query(insert, logger: logger).collect() }
            }
        }
    }

    /// A page of a channel's unexpired messages, oldest first.
    public func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64)
        throws(HistoryError) -> [StoredMessage] {
        guard query.limit > 0, let bounds = query.range.bounds else { return [] }
        let order = query.fromOldest ? "ASC" : "DESC"
        var binds = PostgresBindings()
        binds.append(subscribeKey)
        binds.append(channel)
        binds.append(Self.integer(bounds.lowerBound))
        binds.append(Self.integer(bounds.upperBound))
        binds.append(Self.integer(now))
        binds.append(Int64(query.limit))
        let sql = Self.select + """
            WHERE subscribe_key = $1 AND channel = $2 AND timetoken BETWEEN $3 AND $4
                AND (expires_at IS NULL OR expires_at > $5)
            ORDER BY timetoken \(order) LIMIT $6
            """
        let found = try rows(PostgresQuery(unsafeSQL: sql, binds: binds))
        return query.fromOldest ? found : found.reversed()
    }

    /// Unexpired messages after `after`, counted up to `limit`.
    public func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64)
        throws(HistoryError) -> Int {
        guard after.rawValue < HistoryRange.maxTimetoken, limit > 0 else { return 0 }
        let query: PostgresQuery = """
            SELECT COUNT(*) FROM (SELECT 1 FROM pubnode_message
                WHERE subscribe_key = \(subscribeKey) AND channel = \(channel) AND timetoken > \(Self.integer(after.rawValue))
                    AND (expires_at IS NULL OR expires_at > \(Self.integer(now))) LIMIT \(Int64(limit))) AS page
            """
        return Int(try database.scalar(query))
    }

    /// Deletes a channel's messages in `range`.
    @discardableResult
    public func delete(subscribeKey: String, channel: String, range: HistoryRange) throws(HistoryError) -> Int {
        try database.delete(from: .messages, subscribeKey: subscribeKey, channel: channel, range: range)
    }

    /// Deletes every message of a subscribe key.
    @discardableResult
    public func deleteAll(subscribeKey: String) throws(HistoryError) -> Int {
        try database.deleteAll(from: .messages, subscribeKey: subscribeKey)
    }

    /// Deletes up to `limit` expired messages, skipping rows another node's sweep holds.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        try database.expire(from: .messages, now: now, limit: limit)
    }

    /// The greatest timetoken ever stored.
    public func newestTimetoken() throws(HistoryError) -> Timetoken? {
        let logger = database.logger
        let value = try database.run { client -> Int64? in
            for try await value in try await client.query(
                "SELECT value FROM pubnode_state WHERE key = 'newest_timetoken'", logger: logger).decode(Int64.self) {
                return value
            }
            return nil
        }
        return value.map { Timetoken(UInt64(max(0, $0))) }
    }

    /// The newest `perChannel` unexpired messages after `after` of every channel.
    ///
    /// Walks the channels with a recursive loose index scan on the primary key (one seek per
    /// channel), then reads each channel's newest rows from it: cost follows channels × `perChannel`.
    public func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        guard perChannel > 0 else { return [] }
        var binds = PostgresBindings()
        binds.append(Self.integer(after.rawValue))
        binds.append(Self.integer(now))
        binds.append(Int64(perChannel))
        let sql = """
            WITH RECURSIVE channels (subscribe_key, channel) AS (
                (SELECT subscribe_key, channel FROM pubnode_message ORDER BY subscribe_key, channel LIMIT 1)
                UNION ALL
                SELECT next.subscribe_key, next.channel FROM channels AS c, LATERAL (
                    SELECT subscribe_key, channel FROM pubnode_message AS m
                    WHERE (m.subscribe_key, m.channel) > (c.subscribe_key, c.channel)
                    ORDER BY subscribe_key, channel LIMIT 1) AS next
            )
            SELECT page.* FROM channels AS c, LATERAL (
                \(Self.select) WHERE subscribe_key = c.subscribe_key AND channel = c.channel AND timetoken > $1
                    AND (expires_at IS NULL OR expires_at > $2)
                ORDER BY timetoken DESC LIMIT $3) AS page
            ORDER BY page.subscribe_key, page.channel, page.timetoken
            """
        return try rows(PostgresQuery(unsafeSQL: sql, binds: binds))
    }

    private static let select = """
        SELECT subscribe_key, channel, timetoken, payload, meta, publisher, message_type, custom_message_type, expires_at
        FROM pubnode_message

        """

    /// One multi-row insert of `messages`; with `newest`, the same statement raises the stored
    /// newest timetoken to it (a data-modifying `WITH`: both or neither).
    private static func insert(_ messages: ArraySlice<StoredMessage>, newest: Int64?) -> PostgresQuery {
        var binds = PostgresBindings(capacity: messages.count * 9 + 1)
        var rows: [String] = []
        rows.reserveCapacity(messages.count)
        for message in messages {
            let first = binds.count + 1
            binds.append(message.subscribeKey)
            binds.append(message.channel)
            binds.append(integer(message.timetoken.rawValue))
            binds.append(ByteBuffer(bytes: message.payload))
            binds.append(message.meta.map { ByteBuffer(bytes: $0) })
            binds.append(message.publisher)
            binds.append(Int32(clamping: message.messageType))
            binds.append(message.customMessageType)
            binds.append(message.expiresAtNanoseconds.map(integer))
            rows.append("(" + (first..<first + 9).map { "$\($0)" }.joined(separator: ",") + ")")
        }
        let insert = """
            INSERT INTO pubnode_message (subscribe_key, channel, timetoken, payload, meta, publisher, message_type,
                custom_message_type, expires_at) VALUES \(rows.joined(separator: ","))
            ON CONFLICT DO NOTHING
            """
        guard let newest else { return PostgresQuery(unsafeSQL: insert, binds: binds) }
        binds.append(newest)
        return PostgresQuery(unsafeSQL: """
            WITH stored AS (\(insert))
            INSERT INTO pubnode_state (key, value) VALUES ('newest_timetoken', $\(binds.count))
            ON CONFLICT (key) DO UPDATE SET value = GREATEST(pubnode_state.value, excluded.value)
            """, binds: binds)
    }

    private func rows(_ query: PostgresQuery) throws(HistoryError) -> [StoredMessage] {
        let logger = database.logger
        return try database.run { client in
            var out: [StoredMessage] = []
            let rows = try await client.query(query, logger: logger)
            for try await (key, channel, timetoken, payload, meta, publisher, type, custom, expires) in rows.decode(
                (String, String, Int64, ByteBuffer, ByteBuffer?, String?, Int32, String?, Int64?).self) {
                out.append(StoredMessage(subscribeKey: key, channel: channel, timetoken: Timetoken(UInt64(max(0, timetoken))),
                                         payload: Array(buffer: payload), meta: meta.map { Array(buffer: $0) },
                                         publisher: publisher, messageType: Int(type), customMessageType: custom,
                                         expiresAtNanoseconds: expires.map { UInt64(max(0, $0)) }))
            }
            return out
        }
    }

    /// A timetoken or time as PostgreSQL's `bigint`.
    static func integer(_ value: UInt64) -> Int64 { Int64(clamping: value) }
}
