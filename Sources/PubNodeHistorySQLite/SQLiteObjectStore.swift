import Foundation
import GRDB
import PubNodeCore

/// App Context objects in their own SQLite file (`objects.sqlite` in the data directory): uuid
/// and channel metadata and memberships, keysets kept apart by subscribe key. Every change is one
/// transaction committed before the node answers; reads and writes run on the node's read queue,
/// never on an event loop.
///
/// ```
/// object(subscribe_key, kind, id, fields JSON, custom JSON, updated ms, etag)  PRIMARY KEY (subscribe_key, kind, id)
/// membership(subscribe_key, uuid, channel, status, type, custom JSON, updated ms, etag)
///            PRIMARY KEY (subscribe_key, uuid, channel); INDEX (subscribe_key, channel, uuid)
/// ```
public final class SQLiteObjectStore: ObjectStore {
    /// The name of the file inside the node's data directory.
    public static let fileName = "objects.sqlite"

    private let writer: any DatabaseWriter

    /// Opens (creating and migrating if needed) the store at `path`.
    public static func file(path: String) throws(PubNodeError) -> SQLiteObjectStore {
        do {
            return try SQLiteObjectStore(DatabaseQueue(path: path))
        } catch let error as PubNodeError {
            throw error
        } catch {
            throw .storageFailed("cannot open the object store at \(path): \(error)")
        }
    }

    /// A store on `writer` (`DatabaseQueue()` for one in memory), migrated.
    public init(_ writer: any DatabaseWriter) throws(PubNodeError) {
        self.writer = writer
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE object (
                    subscribe_key TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    id TEXT NOT NULL,
                    fields TEXT NOT NULL,
                    custom TEXT,
                    updated INTEGER NOT NULL,
                    etag TEXT NOT NULL,
                    PRIMARY KEY (subscribe_key, kind, id)
                ) WITHOUT ROWID;
                CREATE TABLE membership (
                    subscribe_key TEXT NOT NULL,
                    uuid TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    status TEXT,
                    type TEXT,
                    custom TEXT,
                    updated INTEGER NOT NULL,
                    etag TEXT NOT NULL,
                    PRIMARY KEY (subscribe_key, uuid, channel)
                ) WITHOUT ROWID;
                CREATE INDEX membership_by_channel ON membership (subscribe_key, channel, uuid);
                """)
        }
        try run { try migrator.migrate(writer) }
    }

    /// One object, nil when absent.
    public func object(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> AppObject? {
        try run {
            try writer.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM object WHERE subscribe_key = ? AND kind = ? AND id = ?",
                                 arguments: [subscribeKey, kind.rawValue, id]).map { Self.object($0, kind) }
            }
        }
    }

    /// Every object of a kind in a keyset.
    public func objects(_ kind: ObjectKind, subscribeKey: String) throws(PubNodeError) -> [AppObject] {
        try run {
            try writer.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM object WHERE subscribe_key = ? AND kind = ?",
                                 arguments: [subscribeKey, kind.rawValue]).map { Self.object($0, kind) }
            }
        }
    }

    /// Reads, changes and stores an object in one transaction.
    public func update(_ kind: ObjectKind, subscribeKey: String, id: String, maxObjects: Int,
                       _ change: (AppObject?) throws(PubNodeError) -> AppObject) throws(PubNodeError) -> AppObject {
        var refusal: PubNodeError?
        let stored: AppObject? = try run {
            try writer.write { db -> AppObject? in
                let existing = try Row.fetchOne(db, sql: "SELECT * FROM object WHERE subscribe_key = ? AND kind = ? AND id = ?",
                                                arguments: [subscribeKey, kind.rawValue, id]).map { Self.object($0, kind) }
                if existing == nil {
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM object WHERE subscribe_key = ? AND kind = ?",
                                                 arguments: [subscribeKey, kind.rawValue]) ?? 0
                    if count >= maxObjects {
                        refusal = .invalidParameter("the keyset holds the most \(kind.rawValue) objects it may (\(maxObjects))")
                        return nil
                    }
                }
                let updated: AppObject
                do throws(PubNodeError) { updated = try change(existing) } catch {
                    refusal = error
                    return nil
                }
                try db.execute(sql: """
                    INSERT OR REPLACE INTO object (subscribe_key, kind, id, fields, custom, updated, etag)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [subscribeKey, kind.rawValue, id, ObjectJSON.object(updated.fields.mapValues(ObjectJSON.string)).text,
                                     updated.custom.map { ObjectJSON.object($0).text }, updated.updated, updated.eTag])
                return updated
            }
        }
        if let refusal { throw refusal }
        guard let stored else { throw .storageFailed("object store: nothing written") }
        return stored
    }

    /// Removes an object.
    public func remove(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> Bool {
        try run {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM object WHERE subscribe_key = ? AND kind = ? AND id = ?",
                               arguments: [subscribeKey, kind.rawValue, id])
                return db.changesCount > 0
            }
        }
    }

    /// A uuid's memberships or a channel's members.
    public func memberships(subscribeKey: String, uuid: String?, channel: String?) throws(PubNodeError) -> [AppMembership] {
        try run {
            try writer.read { db in
                let rows: [Row]
                if let uuid {
                    rows = try Row.fetchAll(db, sql: "SELECT * FROM membership WHERE subscribe_key = ? AND uuid = ?",
                                            arguments: [subscribeKey, uuid])
                } else if let channel {
                    rows = try Row.fetchAll(db, sql: "SELECT * FROM membership WHERE subscribe_key = ? AND channel = ?",
                                            arguments: [subscribeKey, channel])
                } else {
                    rows = []
                }
                return rows.map(Self.membership)
            }
        }
    }

    /// Sets and deletes memberships in one transaction.
    public func applyMemberships(subscribeKey: String, set: [AppMembership], delete: [(uuid: String, channel: String)],
                                 maxPerObject: Int, maxPerKeyset: Int) throws(PubNodeError) -> [AppMembership] {
        var refusal: PubNodeError?
        let removed: [AppMembership]
        do throws(PubNodeError) {
            removed = try run { try apply(subscribeKey, set, delete, (maxPerObject, maxPerKeyset), &refusal) }
        } catch {
            throw refusal ?? error
        }
        return removed
    }

    private func apply(_ subscribeKey: String, _ set: [AppMembership], _ delete: [(uuid: String, channel: String)],
                       _ bounds: (perObject: Int, perKeyset: Int), _ refusal: inout PubNodeError?)
        throws -> [AppMembership] {
            var refused: PubNodeError?
            defer { refusal = refused }
            return try writer.write { db -> [AppMembership] in
                var removed: [AppMembership] = []
                for pair in delete {
                    let sql = "SELECT * FROM membership WHERE subscribe_key = ? AND uuid = ? AND channel = ?"
                    if let row = try Row.fetchOne(db, sql: sql, arguments: [subscribeKey, pair.uuid, pair.channel]) {
                        removed.append(Self.membership(row))
                        try db.execute(sql: "DELETE FROM membership WHERE subscribe_key = ? AND uuid = ? AND channel = ?",
                                       arguments: [subscribeKey, pair.uuid, pair.channel])
                    }
                }
                for record in set {
                    try db.execute(sql: """
                        INSERT OR REPLACE INTO membership (subscribe_key, uuid, channel, status, type, custom, updated, etag)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [subscribeKey, record.uuid, record.channel, record.status, record.type,
                                         record.custom.map { ObjectJSON.object($0).text }, record.updated, record.eTag])
                }
                for record in set {
                    let byUUID = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership WHERE subscribe_key = ? AND uuid = ?",
                                                  arguments: [subscribeKey, record.uuid]) ?? 0
                    let byChannel = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership WHERE subscribe_key = ? AND channel = ?",
                                                     arguments: [subscribeKey, record.channel]) ?? 0
                    if byUUID > bounds.perObject || byChannel > bounds.perObject {
                        refused = .invalidParameter("a uuid or channel may hold at most \(bounds.perObject) memberships")
                        throw CancelledChange()
                    }
                }
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM membership WHERE subscribe_key = ?",
                                             arguments: [subscribeKey]) ?? 0
                if !set.isEmpty, total > bounds.perKeyset {
                    refused = .invalidParameter("the keyset holds the most memberships it may (\(bounds.perKeyset))")
                    throw CancelledChange()
                }
                return removed
            }
    }

    /// Forgets a keyset.
    public func deleteKeyset(_ subscribeKey: String) throws(PubNodeError) {
        try run {
            try writer.write { db in
                try db.execute(sql: "DELETE FROM object WHERE subscribe_key = ?", arguments: [subscribeKey])
                try db.execute(sql: "DELETE FROM membership WHERE subscribe_key = ?", arguments: [subscribeKey])
            }
        }
    }

    private static func object(_ row: Row, _ kind: ObjectKind) -> AppObject {
        var fields: [String: String] = [:]
        if case .object(let members)? = ObjectJSON.parse(Array((row["fields"] as String).utf8)) {
            for (name, value) in members { if case .string(let text) = value { fields[name] = text } }
        }
        var object = AppObject(kind: kind, id: row["id"], fields: fields, custom: custom(row["custom"]), updated: row["updated"])
        object.eTag = row["etag"]
        return object
    }

    private static func membership(_ row: Row) -> AppMembership {
        var record = AppMembership(uuid: row["uuid"], channel: row["channel"], status: row["status"], type: row["type"],
                                   custom: custom(row["custom"]), updated: row["updated"])
        record.eTag = row["etag"]
        return record
    }

    private static func custom(_ text: String?) -> [String: ObjectJSON]? {
        guard let text, case .object(let members)? = ObjectJSON.parse(Array(text.utf8)) else { return nil }
        return members
    }

    /// Rolls a transaction back after a refusal.
    private struct CancelledChange: Error {}

    private func run<T>(_ body: () throws -> T) throws(PubNodeError) -> T {
        do { return try body() } catch is CancelledChange {
            throw .invalidParameter("change refused")
        } catch {
            throw .storageFailed("object store: \(error)")
        }
    }
}
