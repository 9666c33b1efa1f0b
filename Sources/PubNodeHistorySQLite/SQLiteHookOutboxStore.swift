import Foundation
import GRDB
import PubNodeCore

/// The hook outbox kept in the history database (table `hook_outbox`), so after-hook events
/// waiting for delivery and dead letters survive a restart. Rows with `spilled = 1` are events
/// past the outbox's in-memory capacity, waiting here only (index `hook_outbox_spilled`).
///
/// Writes go through GRDB's asynchronous API: they run on the database's own writer queue, never
/// on an event loop or a blocked task thread.
public struct SQLiteHookOutboxStore: HookOutboxStore {
    /// The database.
    public let database: HistoryDatabase

    /// Creates the store on `database`.
    public init(database: HistoryDatabase) {
        self.database = database
    }

    /// Every entry left that is not spilled, oldest first.
    public func load() throws -> [OutboxRecord] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM hook_outbox WHERE spilled = 0 ORDER BY id").map(Self.record)
        }
    }

    /// Each hook's spilled entries: how many, and the newest id.
    public func spilled() throws -> [String: SpilledEvents] {
        try database.writer.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT hook, count(*), max(id) FROM hook_outbox WHERE spilled = 1 GROUP BY hook")
            return Dictionary(uniqueKeysWithValues: rows.map { row in
                (row[0] as String, SpilledEvents(count: row[1], newestID: UInt64(bitPattern: row[2] as Int64)))
            })
        }
    }

    /// Up to `limit` of `hook`'s oldest spilled entries, marked as resident in the same transaction.
    public func unspill(hook: String, limit: Int) async throws -> [OutboxRecord] {
        try await database.writer.write { db in
            let records = try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM hook_outbox WHERE hook = ? AND spilled = 1 ORDER BY id LIMIT ?
                """, arguments: [hook, limit]).map(Self.record)
            let statement = try db.cachedStatement(sql: "UPDATE hook_outbox SET spilled = 0 WHERE id = ?")
            for record in records { try statement.execute(arguments: [Int64(bitPattern: record.id)]) }
            return records.map { record in
                var record = record
                record.spilled = false
                return record
            }
        }
    }

    private static let columns = "id, hook, body, attempts, created_at, last_error, dead, spilled"

    private static func record(_ row: Row) -> OutboxRecord {
        OutboxRecord(id: UInt64(bitPattern: row["id"]), hook: row["hook"], body: [UInt8](row["body"] as Data),
                     attempts: row["attempts"], createdAtMilliseconds: row["created_at"], lastError: row["last_error"],
                     dead: row["dead"] as Bool, spilled: row["spilled"] as Bool)
    }

    /// Inserts or replaces `records` in one transaction.
    public func save(_ records: [OutboxRecord]) async throws {
        try await database.writer.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO hook_outbox (id, hook, body, attempts, created_at, last_error, dead, spilled)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for record in records {
                try statement.execute(arguments: [Int64(bitPattern: record.id), record.hook, Data(record.body), record.attempts,
                                                  record.createdAtMilliseconds, record.lastError, record.dead,
                                                  record.spilled])
            }
        }
    }

    /// Deletes the entries with these ids.
    public func delete(ids: [UInt64]) async throws {
        guard !ids.isEmpty else { return }
        try await database.writer.write { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM hook_outbox WHERE id = ?")
            for id in ids { try statement.execute(arguments: [Int64(bitPattern: id)]) }
        }
    }
}
