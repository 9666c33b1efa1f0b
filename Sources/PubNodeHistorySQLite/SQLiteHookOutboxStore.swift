import Foundation
import GRDB
import PubNodeCore

/// The hook outbox kept in the history database (table `hook_outbox`), so after-hook events
/// waiting for delivery and dead letters survive a restart.
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

    /// Every entry left, oldest first.
    public func load() throws -> [OutboxRecord] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, hook, body, attempts, created_at, last_error, dead FROM hook_outbox ORDER BY id")
                .map { row in
                    OutboxRecord(id: UInt64(bitPattern: row["id"]), hook: row["hook"], body: [UInt8](row["body"] as Data),
                                 attempts: row["attempts"], createdAtMilliseconds: row["created_at"],
                                 lastError: row["last_error"], dead: row["dead"] as Bool)
                }
        }
    }

    /// Inserts or replaces `records` in one transaction.
    public func save(_ records: [OutboxRecord]) async throws {
        try await database.writer.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO hook_outbox (id, hook, body, attempts, created_at, last_error, dead)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for record in records {
                try statement.execute(arguments: [Int64(bitPattern: record.id), record.hook, Data(record.body), record.attempts,
                                                  record.createdAtMilliseconds, record.lastError, record.dead])
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
