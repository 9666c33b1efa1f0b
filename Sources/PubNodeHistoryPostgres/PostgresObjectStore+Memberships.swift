import PostgresNIO
import PubNodeCore
import Synchronization

/// Memberships: a uuid's channels and a channel's members are the same rows, read by either index.
extension PostgresObjectStore {
    /// A uuid's memberships or a channel's members.
    public func memberships(subscribeKey: String, uuid: String?, channel: String?) throws(PubNodeError) -> [AppMembership] {
        let query: PostgresQuery
        if let uuid {
            query = """
                SELECT \(unescaped: Self.membershipColumns) FROM pubnode_membership
                WHERE subscribe_key = \(subscribeKey) AND uuid = \(uuid)
                """
        } else if let channel {
            query = """
                SELECT \(unescaped: Self.membershipColumns) FROM pubnode_membership
                WHERE subscribe_key = \(subscribeKey) AND channel = \(channel)
                """
        } else {
            return []
        }
        let logger = database.logger
        return try run { client in
            var out: [AppMembership] = []
            for try await row in try await client.query(query, logger: logger).decode(MembershipRow.self) {
                out.append(Self.membership(row))
            }
            return out
        }
    }

    /// Sets and deletes memberships in one transaction, holding the keyset's membership lock (an
    /// advisory lock) so concurrent changes on several nodes take turns and the bounds hold.
    public func applyMemberships(subscribeKey: String, set: [AppMembership], delete: [(uuid: String, channel: String)],
                                 maxPerObject: Int, maxPerKeyset: Int) throws(PubNodeError) -> [AppMembership] {
        let logger = database.logger
        let refusal = Mutex<PubNodeError?>(nil)
        let pairs = delete.map { [$0.uuid, $0.channel] }
        let lock = "pubnode_membership/\(subscribeKey)"
        do throws(PubNodeError) {
            return try run { client in
                try await client.withTransaction(logger: logger) { connection -> [AppMembership] in
                    _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lock), 0))",
                                                   logger: logger).collect()
                    var removed: [AppMembership] = []
                    for pair in pairs {
                        let query: PostgresQuery = """
                            DELETE FROM pubnode_membership
                            WHERE subscribe_key = \(subscribeKey) AND uuid = \(pair[0]) AND channel = \(pair[1])
                            RETURNING \(unescaped: Self.membershipColumns)
                            """
                        for try await row in try await connection.query(query, logger: logger).decode(MembershipRow.self) {
                            removed.append(Self.membership(row))
                        }
                    }
                    for record in set {
                        _ = try await connection.query("""
                            INSERT INTO pubnode_membership (subscribe_key, uuid, channel, status, type, custom, updated, etag)
                            VALUES (\(subscribeKey), \(record.uuid), \(record.channel), \(record.status), \(record.type),
                                    \(Self.customText(record.custom)), \(record.updated), \(record.eTag))
                            ON CONFLICT (subscribe_key, uuid, channel) DO UPDATE SET status = EXCLUDED.status,
                                type = EXCLUDED.type, custom = EXCLUDED.custom, updated = EXCLUDED.updated, etag = EXCLUDED.etag
                            """, logger: logger).collect()
                    }
                    guard !set.isEmpty else { return removed }
                    let uuids = Array(Swift.Set(set.map(\.uuid))), channels = Array(Swift.Set(set.map(\.channel)))
                    var most: Int64 = 0
                    for try await count in try await connection.query("""
                        SELECT GREATEST(
                            (SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM pubnode_membership
                                WHERE subscribe_key = \(subscribeKey) AND uuid = ANY(\(uuids)) GROUP BY uuid) AS u),
                            (SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM pubnode_membership
                                WHERE subscribe_key = \(subscribeKey) AND channel = ANY(\(channels)) GROUP BY channel) AS c))
                        """, logger: logger).decode(Int64.self) { most = count }
                    if most > maxPerObject {
                        refusal.withLock { $0 = .invalidParameter("a uuid or channel may hold at most \(maxPerObject) memberships") }
                        throw Refused()
                    }
                    var total: Int64 = 0
                    for try await count in try await connection.query(
                        "SELECT COUNT(*) FROM pubnode_membership WHERE subscribe_key = \(subscribeKey)", logger: logger)
                        .decode(Int64.self) { total = count }
                    if total > maxPerKeyset {
                        refusal.withLock { $0 = .invalidParameter("the keyset holds the most memberships it may (\(maxPerKeyset))") }
                        throw Refused()
                    }
                    return removed
                }
            }
        } catch {
            throw refusal.withLock { $0 } ?? error
        }
    }

    /// Rolls the transaction back after a refusal (the refusal itself travels beside it).
    private struct Refused: Error {}

    /// A membership row: uuid, channel, status, type, custom, updated, etag.
    typealias MembershipRow = (String, String, String?, String?, String?, Int64, String)

    static let membershipColumns = "uuid, channel, status, type, custom, updated, etag"

    static func membership(_ row: MembershipRow) -> AppMembership {
        var record = AppMembership(uuid: row.0, channel: row.1, status: row.2, type: row.3, custom: custom(row.4), updated: row.5)
        record.eTag = row.6
        return record
    }
}
