import Foundation
import GRDB
import PubNodeCore

/// History in SQLite: one row per message, payload and meta kept as the published JSON bytes.
///
/// Reads use the `(subscribe_key, channel, timetoken)` index and return only unexpired rows.
/// Writes come from the group-commit `HistoryWriter`, one transaction per batch.
public final class SQLiteHistoryStore: HistoryStore {
    /// The database.
    public let database: HistoryDatabase

    /// Creates a store over an opened database.
    public init(database: HistoryDatabase) {
        self.database = database
    }

    /// Inserts the batch in one transaction and raises the stored newest timetoken.
    public func append(_ messages: [StoredMessage]) throws(HistoryError) {
        guard !messages.isEmpty else { return }
        try run { () throws -> Void in
            try database.writer.write { db in
                let insert = try db.cachedStatement(sql: """
                    INSERT OR IGNORE INTO message (subscribe_key, channel, timetoken, payload, meta, publisher,
                        message_type, custom_message_type, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                var newest: UInt64 = 0
                for message in messages {
                    insert.setUncheckedArguments([
                        message.subscribeKey, message.channel, HistoryDatabase.integer(message.timetoken.rawValue),
                        Data(message.payload), message.meta.map { Data($0) }, message.publisher, message.messageType,
                        message.customMessageType, message.expiresAtNanoseconds.map(HistoryDatabase.integer),
                    ])
                    try insert.execute()
                    newest = max(newest, message.timetoken.rawValue)
                }
                try db.cachedStatement(sql: """
                    INSERT INTO node_state (key, value) VALUES ('newest_timetoken', ?)
                    ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)
                    """).execute(arguments: [HistoryDatabase.integer(newest)])
            }
        }
    }

    /// A page of a channel's unexpired messages, oldest first.
    public func messages(subscribeKey: String, channel: String, query: HistoryQuery, now: UInt64)
        throws(HistoryError) -> [StoredMessage] {
        guard query.limit > 0, let bounds = query.range.bounds else { return [] }
        let order = query.fromOldest ? "ASC" : "DESC"
        return try run { () throws -> [StoredMessage] in
            let found = try database.writer.read { db -> [StoredMessage] in
                let statement = try db.cachedStatement(sql: """
                    SELECT subscribe_key, channel, timetoken, payload, meta, publisher, message_type,
                        custom_message_type, expires_at FROM message
                    WHERE subscribe_key = ? AND channel = ? AND timetoken BETWEEN ? AND ?
                        AND (expires_at IS NULL OR expires_at > ?)
                    ORDER BY timetoken \(order) LIMIT ?
                    """)
                let arguments: StatementArguments = [subscribeKey, channel, HistoryDatabase.integer(bounds.lowerBound),
                                                     HistoryDatabase.integer(bounds.upperBound), HistoryDatabase.integer(now), query.limit]
                return try Self.decode(Row.fetchCursor(statement, arguments: arguments))
            }
            return query.fromOldest ? found : found.reversed()
        }
    }

    /// Unexpired messages after `after`, counted up to `limit`.
    public func count(subscribeKey: String, channel: String, after: Timetoken, limit: Int, now: UInt64)
        throws(HistoryError) -> Int {
        guard after.rawValue < HistoryRange.maxTimetoken, limit > 0 else { return 0 }
        return try run { () throws -> Int in
            try database.writer.read { db in
                try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COUNT(*) FROM (SELECT 1 FROM message
                        WHERE subscribe_key = ? AND channel = ? AND timetoken > ?
                            AND (expires_at IS NULL OR expires_at > ?) LIMIT ?)
                    """), arguments: [subscribeKey, channel, HistoryDatabase.integer(after.rawValue), HistoryDatabase.integer(now), limit]) ?? 0
            }
        }
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

    /// Deletes up to `limit` expired messages.
    @discardableResult
    public func expire(now: UInt64, limit: Int) throws(HistoryError) -> Int {
        try database.expire(from: .messages, now: now, limit: limit)
    }

    /// The greatest timetoken ever stored.
    public func newestTimetoken() throws(HistoryError) -> Timetoken? {
        try run { () throws -> Timetoken? in
            try database.writer.read { db in
                try Int64.fetchOne(db, sql: "SELECT value FROM node_state WHERE key = 'newest_timetoken'")
                    .map { Timetoken(UInt64(max(0, $0))) }
            }
        }
    }

    /// The newest `perChannel` unexpired messages after `after` of every channel.
    ///
    /// Walks the channels with a loose index scan (one seek per channel), then reads each
    /// channel's newest rows from the same index: cost follows channels × `perChannel`, not rows.
    public func latest(perChannel: Int, after: Timetoken, now: UInt64) throws(HistoryError) -> [StoredMessage] {
        guard perChannel > 0 else { return [] }
        return try run { () throws -> [StoredMessage] in
            try database.writer.read { db in
                let first = try db.makeStatement(sql: """
                    SELECT subscribe_key, channel FROM message ORDER BY subscribe_key, channel LIMIT 1
                    """)
                let next = try db.makeStatement(sql: """
                    SELECT subscribe_key, channel FROM message WHERE (subscribe_key, channel) > (?, ?)
                    ORDER BY subscribe_key, channel LIMIT 1
                    """)
                let page = try db.makeStatement(sql: """
                    SELECT subscribe_key, channel, timetoken, payload, meta, publisher, message_type,
                        custom_message_type, expires_at FROM message
                    WHERE subscribe_key = ? AND channel = ? AND timetoken > ? AND (expires_at IS NULL OR expires_at > ?)
                    ORDER BY timetoken DESC LIMIT ?
                    """)
                var out: [StoredMessage] = []
                var key = try Row.fetchOne(first)
                while let row = key {
                    let subscribeKey: String = row[0]
                    let channel: String = row[1]
                    out += try Self.decode(Row.fetchCursor(page, arguments: [
                        subscribeKey, channel, HistoryDatabase.integer(after.rawValue), HistoryDatabase.integer(now), perChannel,
                    ])).reversed()
                    key = try Row.fetchOne(next, arguments: [subscribeKey, channel])
                }
                return out
            }
        }
    }

    private static func decode(_ rows: RowCursor) throws -> [StoredMessage] {
        var out: [StoredMessage] = []
        while let row = try rows.next() {
            let payload = try row.withUnsafeData(atIndex: 3) { $0.map { [UInt8]($0) } ?? [] }
            let meta = try row.withUnsafeData(atIndex: 4) { $0.map { [UInt8]($0) } }
            let expires: Int64? = row[8]
            out.append(StoredMessage(subscribeKey: row[0], channel: row[1], timetoken: Timetoken(UInt64(max(0, row[2] as Int64))),
                                     payload: payload, meta: meta, publisher: row[5], messageType: row[6],
                                     customMessageType: row[7], expiresAtNanoseconds: expires.map { UInt64(max(0, $0)) }))
        }
        return out
    }


    private func run<T>(_ body: () throws -> T) throws(HistoryError) -> T {
        do { return try body() } catch { throw HistoryDatabase.runtime(error) }
    }
}
