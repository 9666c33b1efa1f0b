import PostgresNIO
import PubNodeCore

/// The access store in PostgreSQL (`pubnode_keyset`, `pubnode_revocation`, migration
/// "v4: access"): keysets created through the tenants API, secrets included, and revoked tokens,
/// shared by every node on the database. The semantics are `SQLiteAccessStore`'s; every change is
/// committed before the tenants API or the revoke answers.
///
/// The database holds secrets: grant its `pubnode_keyset` table to the node's role only.
/// Each revocation carries the database's time of recording (`recorded_us`), so a node following
/// the store reads only the revocations recorded since its last read, with a margin of
/// `cursorMargin` for transactions that committed late.
public final class PostgresAccessStore: AccessStore {
    /// The database.
    public let database: PostgresDatabase
    /// How far (microseconds) a follow-up read reaches back before the previous read's time.
    static let cursorMargin: Int64 = 60_000_000

    /// Creates a store over a migrated database.
    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// Every created keyset.
    public func keysets() throws(AccessStoreError) -> [StoredKeyset] {
        let logger = database.logger
        return try run { client in
            var out: [StoredKeyset] = []
            for try await (sub, pub, secret, manager, disabled, publishes, requests, events) in try await client.query("""
                SELECT subscribe_key, publish_key, secret_key, access_manager, disabled, publishes_per_second,
                    requests_per_second, app_context_events
                FROM pubnode_keyset ORDER BY subscribe_key
                """, logger: logger).decode((String, String, String?, Bool, Bool, Double?, Double?, Bool).self) {
                let limits = RateLimits(publishesPerSecond: publishes, requestsPerSecond: requests)
                out.append(StoredKeyset(keyset: Keyset(publishKey: pub, subscribeKey: sub, secretKey: secret, accessManager: manager,
                                                       rateLimits: limits == .unlimited ? nil : limits, appContextEvents: events),
                                        disabled: disabled))
            }
            return out
        }
    }

    /// Inserts or replaces a created keyset.
    public func save(_ stored: StoredKeyset) throws(AccessStoreError) {
        let keyset = stored.keyset
        let logger = database.logger
        try run { client in
            _ = try await client.query("""
                INSERT INTO pubnode_keyset (subscribe_key, publish_key, secret_key, access_manager, disabled,
                    publishes_per_second, requests_per_second, app_context_events)
                VALUES (\(keyset.subscribeKey), \(keyset.publishKey), \(keyset.secretKey), \(keyset.accessManager),
                    \(stored.disabled), \(keyset.rateLimits?.publishesPerSecond), \(keyset.rateLimits?.requestsPerSecond),
                    \(keyset.appContextEvents))
                ON CONFLICT (subscribe_key) DO UPDATE SET publish_key = EXCLUDED.publish_key,
                    secret_key = EXCLUDED.secret_key, access_manager = EXCLUDED.access_manager, disabled = EXCLUDED.disabled,
                    publishes_per_second = EXCLUDED.publishes_per_second, requests_per_second = EXCLUDED.requests_per_second,
                    app_context_events = EXCLUDED.app_context_events
                """, logger: logger).collect()
        }
    }

    /// Forgets a created keyset and its revocations, in one transaction.
    public func delete(subscribeKey: String) throws(AccessStoreError) {
        let logger = database.logger
        try run { client in
            try await client.withTransaction(logger: logger) { connection in
                _ = try await connection.query("DELETE FROM pubnode_keyset WHERE subscribe_key = \(subscribeKey)",
                                               logger: logger).collect()
                _ = try await connection.query("DELETE FROM pubnode_revocation WHERE subscribe_key = \(subscribeKey)",
                                               logger: logger).collect()
            }
        }
    }

    /// Records a revoked token (again: its recording time is renewed).
    public func revoke(_ revocation: Revocation) throws(AccessStoreError) {
        let logger = database.logger
        try run { client in
            _ = try await client.query("""
                INSERT INTO pubnode_revocation (subscribe_key, token_id, expires_at)
                VALUES (\(revocation.subscribeKey), \(revocation.tokenID), \(Int64(clamping: revocation.expiresAt)))
                ON CONFLICT (subscribe_key, token_id) DO UPDATE SET expires_at = EXCLUDED.expires_at,
                    recorded_us = EXCLUDED.recorded_us
                """, logger: logger).collect()
        }
    }

    /// The revocations in force at `now`; expired ones are deleted.
    public func revocations(now: UInt64) throws(AccessStoreError) -> [Revocation] {
        let logger = database.logger, now = Int64(clamping: now)
        return try run { client in
            _ = try await client.query("DELETE FROM pubnode_revocation WHERE expires_at <= \(now)", logger: logger).collect()
            var out: [Revocation] = []
            for try await (key, id, expires) in try await client.query(
                "SELECT subscribe_key, token_id, expires_at FROM pubnode_revocation WHERE expires_at > \(now)",
                logger: logger).decode((String, String, Int64).self) {
                out.append(Revocation(subscribeKey: key, tokenID: id, expiresAt: UInt64(max(0, expires))))
            }
            return out
        }
    }

    /// The revocations in force recorded since `cursor` (the database's time of the previous read,
    /// less `cursorMargin`): one query on the `recorded_us` index.
    public func revocations(now: UInt64, since cursor: Int64?) throws(AccessStoreError) -> RevocationPage {
        let logger = database.logger, now = Int64(clamping: now), since = cursor ?? Int64.min
        return try run { client in
            var page = RevocationPage(revocations: [], cursor: nil)
            for try await (clock, key, id, expires) in try await client.query("""
                SELECT clock.us, r.subscribe_key, r.token_id, r.expires_at
                FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS us) AS clock
                LEFT JOIN pubnode_revocation r ON r.recorded_us >= \(since) AND r.expires_at > \(now)
                """, logger: logger).decode((Int64, String?, String?, Int64?).self) {
                page.cursor = clock - Self.cursorMargin
                if let key, let id, let expires {
                    page.revocations.append(Revocation(subscribeKey: key, tokenID: id, expiresAt: UInt64(max(0, expires))))
                }
            }
            return page
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable (PostgresClient) async throws -> T) throws(AccessStoreError) -> T {
        do { return try database.run(body) } catch { throw AccessStoreError("access store: \(error.description)") }
    }
}
