import Foundation
import GRDB
import PubNodeCore

/// The history database: its connection, schema migrations and pragmas.
///
/// A file database is a WAL `DatabasePool` with `synchronous = NORMAL`: a commit reaches the
/// write-ahead log before `write` returns, so it survives the process being killed; it is made
/// durable against power loss at the next WAL checkpoint (SQLite's documented trade-off).
public struct HistoryDatabase: Sendable {
    /// The name of the database file inside the node's data directory.
    public static let fileName = "history.sqlite"

    /// The connection (a pool for files, a queue in memory).
    public let writer: any DatabaseWriter

    /// Migrates `writer` and checks that it can be read and written.
    public init(_ writer: any DatabaseWriter, verify: Bool = true) throws(HistoryError) {
        self.writer = writer
        do {
            try Self.migrator.migrate(writer)
            if verify {
                let check = try writer.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
                guard check == "ok" else { throw HistoryError.unavailable("integrity check failed: \(check ?? "no answer")") }
            }
            try writer.write { db in
                try db.execute(sql: """
                    INSERT INTO node_state (key, value) VALUES ('opened_at', strftime('%s', 'now'))
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value
                    """)
                // The database's identity, chosen once: `history.id` repeats it (see `HistoryFiles`).
                try db.execute(sql: "INSERT OR IGNORE INTO node_state (key, value) VALUES ('database_id', ?)",
                               arguments: [Int64.random(in: 1...Int64.max)])
            }
        } catch let error as HistoryError {
            throw error
        } catch {
            throw Self.opening(error)
        }
    }

    /// Closes the connection (checkpointing the write-ahead log when it is the last one).
    public func close() throws {
        try writer.close()
    }

    /// The random identity chosen when the database was created.
    public func identity() throws(HistoryError) -> Int64 {
        do {
            let value = try writer.read { db in
                try Int64.fetchOne(db, sql: "SELECT value FROM node_state WHERE key = 'database_id'")
            }
            guard let value else { throw HistoryError.unavailable("the database has no identity") }
            return value
        } catch {
            throw Self.runtime(error)
        }
    }

    /// Opens (creating if needed) the database file at `path`; a node opens its data directory's
    /// file through `HistoryFiles.open()`, which checks it first.
    public static func file(path: String, verify: Bool = true) throws(HistoryError) -> HistoryDatabase {
        var configuration = Configuration()
        configuration.label = "pubnode.history"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw opening(error)
        }
        return try HistoryDatabase(pool, verify: verify)
    }

    /// A private in-memory database (tests, benchmarks).
    public static func inMemory() throws(HistoryError) -> HistoryDatabase {
        do {
            return try HistoryDatabase(DatabaseQueue())
        } catch let error as HistoryError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// The schema, one migration per version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: messages") { db in
            try db.execute(sql: """
                CREATE TABLE message (
                    id INTEGER PRIMARY KEY,
                    subscribe_key TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    timetoken INTEGER NOT NULL,
                    payload BLOB NOT NULL,
                    meta BLOB,
                    publisher TEXT,
                    message_type INTEGER NOT NULL DEFAULT 0,
                    custom_message_type TEXT,
                    expires_at INTEGER
                );
                CREATE UNIQUE INDEX message_by_channel ON message (subscribe_key, channel, timetoken);
                CREATE INDEX message_by_expiry ON message (expires_at) WHERE expires_at IS NOT NULL;
                CREATE TABLE node_state (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                """)
        }
        migrator.registerMigration("v2: hook outbox") { db in
            try db.execute(sql: """
                CREATE TABLE hook_outbox (
                    id INTEGER PRIMARY KEY,
                    hook TEXT NOT NULL,
                    body BLOB NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    last_error TEXT,
                    dead INTEGER NOT NULL DEFAULT 0
                );
                """)
        }
        migrator.registerMigration("v3: hook outbox spill") { db in
            try db.execute(sql: """
                ALTER TABLE hook_outbox ADD COLUMN spilled INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX hook_outbox_spilled ON hook_outbox (hook, id) WHERE spilled = 1;
                """)
        }
        migrator.registerMigration("v4: message actions") { db in
            try db.execute(sql: """
                CREATE TABLE message_action (
                    id INTEGER PRIMARY KEY,
                    subscribe_key TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    message_tt INTEGER NOT NULL,
                    action_tt INTEGER NOT NULL,
                    uuid TEXT NOT NULL,
                    type TEXT NOT NULL,
                    value TEXT NOT NULL,
                    expires_at INTEGER
                );
                CREATE UNIQUE INDEX message_action_unique
                    ON message_action (subscribe_key, channel, message_tt, uuid, type, value);
                CREATE INDEX message_action_by_action ON message_action (subscribe_key, channel, action_tt);
                CREATE INDEX message_action_by_expiry ON message_action (expires_at) WHERE expires_at IS NOT NULL;
                """)
        }
        return migrator
    }

    /// A failure while opening: the file cannot be used as a history database.
    static func opening(_ error: any Error) -> HistoryError {
        guard let error = error as? DatabaseError else { return .unavailable("\(error)") }
        return .unavailable("\(error.message ?? "SQLite error") (\(error.resultCode))")
    }

    /// A failure after opening, classified for the operator.
    static func runtime(_ error: any Error) -> HistoryError {
        if let error = error as? HistoryError { return error }
        guard let error = error as? DatabaseError else { return .failed("\(error)") }
        let text = "\(error.message ?? "SQLite error") (\(error.resultCode))"
        switch error.resultCode {
        case .SQLITE_FULL: return .full(text)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM: return .unavailable(text)
        default: return .failed(text)
        }
    }
}
