import PostgresNIO
import PubNodeCore
import Synchronization

/// App Context objects in PostgreSQL (`pubnode_object`, `pubnode_membership`, migration
/// "v3: app context"), shared by every node on the database; the semantics are
/// `SQLiteObjectStore`'s, keysets kept apart by subscribe key.
///
/// `update` cannot hold a transaction open across the node's `change` (the store protocol is
/// synchronous and the change is not `Sendable`), so it writes optimistically: it reads the
/// object, computes the change, then writes only if the row is still the one read (a conditional
/// `UPDATE … WHERE etag = … AND updated = …`, or for a new object an insert under a
/// per-keyset-and-kind advisory lock that also enforces `maxObjects`). When another node changed
/// the object in between, it reads again and recomputes, so an `If-Match` is always checked
/// against the version actually replaced.
public final class PostgresObjectStore: ObjectStore {
    /// The database.
    public let database: PostgresDatabase
    /// How many times `update` recomputes a change that lost a race before giving up.
    static let attempts = 8

    /// Creates a store over a migrated database.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// One object, nil when absent.
    public func object(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> AppObject? {
        try objects(kind, """
            SELECT id, fields, custom, updated, etag FROM pubnode_object
            WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue) AND id = \(id)
            """).first
    }

    /// Every object of a kind in a keyset.
    public func objects(_ kind: ObjectKind, subscribeKey: String) throws(PubNodeError) -> [AppObject] {
        try objects(kind, """
            SELECT id, fields, custom, updated, etag FROM pubnode_object
            WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue)
            """)
    }

    /// Reads, changes and stores an object; the write lands only on the version read (see the type).
    public func update(_ kind: ObjectKind, subscribeKey: String, id: String, maxObjects: Int,
                       _ change: (AppObject?) throws(PubNodeError) -> AppObject) throws(PubNodeError) -> AppObject {
        let full = PubNodeError.invalidParameter("the keyset holds the most \(kind.rawValue) objects it may (\(maxObjects))")
        for _ in 0..<Self.attempts {
            let existing = try object(kind, subscribeKey: subscribeKey, id: id)
            if existing == nil, try count(kind, subscribeKey: subscribeKey) >= maxObjects { throw full }
            let updated = try change(existing)
            let written: Write
            if let existing {
                written = try replace(kind, subscribeKey: subscribeKey, id: id, with: updated, expected: existing)
            } else {
                written = try insert(kind, subscribeKey: subscribeKey, id: id, updated, maxObjects: maxObjects)
            }
            switch written {
            case .written: return updated
            case .full: throw full
            case .conflict: continue
            }
        }
        throw .storageFailed("object store: the object kept changing during the update; try again")
    }

    /// Removes an object.
    public func remove(_ kind: ObjectKind, subscribeKey: String, id: String) throws(PubNodeError) -> Bool {
        try rowCount("""
            DELETE FROM pubnode_object WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue) AND id = \(id)
            RETURNING 1
            """) > 0
    }

    /// Forgets a keyset: its objects and memberships, in one transaction.
    public func deleteKeyset(_ subscribeKey: String) throws(PubNodeError) {
        let logger = database.logger
        try run { client in
            try await client.withTransaction(logger: logger) { connection in
                _ = try await connection.query("DELETE FROM pubnode_object WHERE subscribe_key = \(subscribeKey)",
                                               logger: logger).collect()
                _ = try await connection.query("DELETE FROM pubnode_membership WHERE subscribe_key = \(subscribeKey)",
                                               logger: logger).collect()
            }
        }
    }

    /// What a conditional write did.
    private enum Write: Sendable {
        case written, full, conflict
    }

    private func count(_ kind: ObjectKind, subscribeKey: String) throws(PubNodeError) -> Int {
        let logger = database.logger
        return try run { client in
            var count: Int64 = 0
            for try await value in try await client.query(
                "SELECT COUNT(*) FROM pubnode_object WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue)",
                logger: logger).decode(Int64.self) { count = value }
            return Int(count)
        }
    }

    /// Writes `object` over `expected` if the row is still that version.
    private func replace(_ kind: ObjectKind, subscribeKey: String, id: String, with object: AppObject,
                         expected: AppObject) throws(PubNodeError) -> Write {
        try rowCount("""
            UPDATE pubnode_object SET fields = \(Self.fieldsText(object)), custom = \(Self.customText(object.custom)),
                updated = \(object.updated), etag = \(object.eTag)
            WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue) AND id = \(id)
                AND etag = \(expected.eTag) AND updated = \(expected.updated)
            RETURNING 1
            """) > 0 ? .written : .conflict
    }

    /// Inserts `object` unless the keyset holds `maxObjects` of its kind or another node inserted
    /// it first; the advisory lock makes concurrent inserts of one keyset and kind take turns, so
    /// the bound holds across nodes.
    private func insert(_ kind: ObjectKind, subscribeKey: String, id: String, _ object: AppObject,
                        maxObjects: Int) throws(PubNodeError) -> Write {
        let logger = database.logger
        let lock = "pubnode_object/\(subscribeKey)/\(kind.rawValue)"
        return try run { client in
            try await client.withTransaction(logger: logger) { connection -> Write in
                _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))", logger: logger).collect()
                var count: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT COUNT(*) FROM pubnode_object WHERE subscribe_key = \(subscribeKey) AND kind = \(kind.rawValue)",
                    logger: logger).decode(Int64.self) { count = value }
                guard count < maxObjects else { return .full }
                let rows = try await connection.query("""
                    INSERT INTO pubnode_object (subscribe_key, kind, id, fields, custom, updated, etag)
                    VALUES (\(subscribeKey), \(kind.rawValue), \(id), \(Self.fieldsText(object)),
                            \(Self.customText(object.custom)), \(object.updated), \(object.eTag))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger).collect()
                return rows.isEmpty ? .conflict : .written
            }
        }
    }

    private func objects(_ kind: ObjectKind, _ query: PostgresQuery) throws(PubNodeError) -> [AppObject] {
        let logger = database.logger
        return try run { client in
            var out: [AppObject] = []
            for try await (id, fields, custom, updated, etag) in try await client.query(query, logger: logger)
                .decode((String, String, String?, Int64, String).self) {
                var object = AppObject(kind: kind, id: id, fields: Self.fields(fields), custom: Self.custom(custom),
                                       updated: updated)
                object.eTag = etag
                out.append(object)
            }
            return out
        }
    }

    /// Runs `query` and counts the rows it answered.
    func rowCount(_ query: PostgresQuery) throws(PubNodeError) -> Int {
        let logger = database.logger
        return try run { client in try await client.query(query, logger: logger).collect().count }
    }

    /// Runs `body` on the database; its failures are `storageFailed`.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) throws(PubNodeError) -> T {
        do { return try database.run(body) } catch {
            throw .storageFailed("object store: \(error.description)")
        }
    }

    static func fieldsText(_ object: AppObject) -> String {
        ObjectJSON.object(object.fields.mapValues(ObjectJSON.string)).text
    }

    static func customText(_ custom: [String: ObjectJSON]?) -> String? {
        custom.map { ObjectJSON.object($0).text }
    }

    static func fields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        if case .object(let members)? = ObjectJSON.parse(Array(text.utf8)) {
            for (name, value) in members { if case .string(let text) = value { fields[name] = text } }
        }
        return fields
    }

    static func custom(_ text: String?) -> [String: ObjectJSON]? {
        guard let text, case .object(let members)? = ObjectJSON.parse(Array(text.utf8)) else { return nil }
        return members
    }
}
