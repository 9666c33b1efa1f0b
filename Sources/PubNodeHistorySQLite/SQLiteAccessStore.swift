import Foundation
import GRDB
import PubNodeCore

/// The access store in its own SQLite file (`access.sqlite` in the data directory): the keysets
/// created through the admin API, secrets included, and the revoked tokens. The file holds
/// secrets, so it is made readable by its owner only each time it is opened (its rollback journal
/// follows the process's umask: the node runs with 077, see `NodeRuntime`).
///
/// Every change is one transaction committed before the admin API or revoke answers, so what was
/// acknowledged survives a crash.
public final class SQLiteAccessStore: AccessStore {
    /// The name of the file inside the node's data directory.
    public static let fileName = "access.sqlite"

    private let writer: any DatabaseWriter

    /// Opens (creating if needed) the store at `path`.
    public static func file(path: String) throws(AccessStoreError) -> SQLiteAccessStore {
        do {
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return try SQLiteAccessStore(DatabaseQueue(path: path))
        } catch let error as AccessStoreError {
            throw error
        } catch {
            throw AccessStoreError("cannot open the access store at \(path): \(error)")
        }
    }

    /// A store on `writer` (`DatabaseQueue()` for one in memory), migrated.
    public init(_ writer: any DatabaseWriter) throws(AccessStoreError) {
        self.writer = writer
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE keyset (
                    subscribe_key TEXT PRIMARY KEY NOT NULL,
                    publish_key TEXT NOT NULL,
                    secret_key TEXT,
                    access_manager INTEGER NOT NULL,
                    disabled INTEGER NOT NULL,
                    publishes_per_second REAL,
                    requests_per_second REAL
                );
                CREATE TABLE revocation (
                    subscribe_key TEXT NOT NULL,
                    token_id TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (subscribe_key, token_id)
                );
                """)
        }
        // App Context events are opt-in per keyset: keysets stored before the column existed keep them off.
        migrator.registerMigration("v2-app-context-events") { db in
            try db.execute(sql: "ALTER TABLE keyset ADD COLUMN app_context_events INTEGER NOT NULL DEFAULT 0")
        }
        try run { try migrator.migrate(writer) }
    }

    /// Every created keyset.
    public func keysets() throws(AccessStoreError) -> [StoredKeyset] {
        try run {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM keyset ORDER BY subscribe_key").map { row in
                    let limits = RateLimits(publishesPerSecond: row["publishes_per_second"],
                                            requestsPerSecond: row["requests_per_second"])
                    return StoredKeyset(keyset: Keyset(publishKey: row["publish_key"], subscribeKey: row["subscribe_key"],
                                                       secretKey: row["secret_key"], accessManager: row["access_manager"],
                                                       rateLimits: limits == .unlimited ? nil : limits,
                                                       appContextEvents: row["app_context_events"]),
                                        disabled: row["disabled"])
                }
            }
        }
    }

    /// Inserts or replaces a created keyset.
    public func save(_ stored: StoredKeyset) throws(AccessStoreError) {
        let keyset = stored.keyset
        try run {
            try writer.write { db in
                try db.execute(sql: """
                    INSERT OR REPLACE INTO keyset (subscribe_key, publish_key, secret_key, access_manager, disabled,
                                                   publishes_per_second, requests_per_second, app_context_events)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [keyset.subscribeKey, keyset.publishKey, keyset.secretKey, keyset.accessManager,
                                     stored.disabled, keyset.rateLimits?.publishesPerSecond,
                                     keyset.rateLimits?.requestsPerSecond, keyset.appContextEvents])
            }
        }
    }

    /// Forgets a created keyset and its revocations.
    public func delete(subscribeKey: String) throws(AccessStoreError) {
        try run {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM keyset WHERE subscribe_key = ?", arguments: [subscribeKey])
                try db.execute(sql: "DELETE FROM revocation WHERE subscribe_key = ?", arguments: [subscribeKey])
            }
        }
    }

    /// Records a revoked token.
    public func revoke(_ revocation: Revocation) throws(AccessStoreError) {
        try run {
            try writer.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO revocation (subscribe_key, token_id, expires_at) VALUES (?, ?, ?)",
                               arguments: [revocation.subscribeKey, revocation.tokenID, Int64(clamping: revocation.expiresAt)])
            }
        }
    }

    /// The revocations in force at `now`; expired ones are deleted.
    public func revocations(now: UInt64) throws(AccessStoreError) -> [Revocation] {
        try run {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM revocation WHERE expires_at <= ?", arguments: [Int64(clamping: now)])
                return try Row.fetchAll(db, sql: "SELECT * FROM revocation").map { row in
                    Revocation(subscribeKey: row["subscribe_key"], tokenID: row["token_id"],
                               expiresAt: UInt64(clamping: row["expires_at"] as Int64))
                }
            }
        }
    }

    private func run<T>(_ body: () throws -> T) throws(AccessStoreError) -> T {
        do { return try body() } catch { throw AccessStoreError("access store: \(error)") }
    }
}
