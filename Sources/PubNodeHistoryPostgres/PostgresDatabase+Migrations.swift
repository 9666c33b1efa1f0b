import PostgresNIO
import PubNodeCore

/// The schema, as named migrations recorded in `pubnode_migrations`.
///
/// Several nodes may start at once: each migrates inside one transaction that first takes a
/// transaction-scoped advisory lock (`pg_advisory_xact_lock`), so one node applies what is
/// missing while the others wait, then find it applied. PostgreSQL's DDL is transactional: a
/// migration that fails leaves nothing behind. Migrations are only ever appended.
extension PostgresDatabase {
    /// A named schema change: its statements run in order, in the migrating transaction.
    struct Migration: Sendable {
        /// The name recorded once applied; never changed.
        var name: String
        /// The statements, one per query (the extended protocol takes one at a time).
        var statements: [String]
    }

    /// The key of the advisory lock held while migrating ("pubnode" in ASCII).
    static let migrationLock: Int64 = 0x7075_626E_6F64_65

    /// Every migration, oldest first.
    static let migrations: [Migration] = [
        Migration(name: "v1: messages", statements: [
            // "C" collation: channels order by their bytes, as in SQLite, whatever the database's locale.
            """
            CREATE TABLE pubnode_message (
                subscribe_key text COLLATE "C" NOT NULL,
                channel text COLLATE "C" NOT NULL,
                timetoken bigint NOT NULL,
                payload bytea NOT NULL,
                meta bytea,
                publisher text,
                message_type integer NOT NULL DEFAULT 0,
                custom_message_type text,
                expires_at bigint,
                PRIMARY KEY (subscribe_key, channel, timetoken)
            )
            """,
            "CREATE INDEX pubnode_message_by_expiry ON pubnode_message (expires_at) WHERE expires_at IS NOT NULL",
            "CREATE TABLE pubnode_state (key text PRIMARY KEY, value bigint NOT NULL)",
        ]),
        Migration(name: "v2: message actions", statements: [
            """
            CREATE TABLE pubnode_message_action (
                subscribe_key text COLLATE "C" NOT NULL,
                channel text COLLATE "C" NOT NULL,
                message_tt bigint NOT NULL,
                action_tt bigint NOT NULL,
                uuid text COLLATE "C" NOT NULL,
                type text COLLATE "C" NOT NULL,
                value text COLLATE "C" NOT NULL,
                expires_at bigint,
                PRIMARY KEY (subscribe_key, channel, message_tt, uuid, type, value)
            )
            """,
            "CREATE INDEX pubnode_message_action_by_action ON pubnode_message_action (subscribe_key, channel, action_tt)",
            """
            CREATE INDEX pubnode_message_action_by_expiry ON pubnode_message_action (expires_at)
                WHERE expires_at IS NOT NULL
            """,
        ]),
    ] + appContextMigrations + accessMigrations

    /// Applies the migrations not yet applied; returns the names it applied.
    @discardableResult
    public func migrate() throws(HistoryError) -> [String] {
        let logger = self.logger
        return try run { client in
            try await client.withTransaction(logger: logger) { connection in
                _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger).collect()
                _ = try await connection.query("""
                    CREATE TABLE IF NOT EXISTS pubnode_migrations (
                        name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger).collect()
                var applied = Set<String>()
                for try await name in try await connection.query("SELECT name FROM pubnode_migrations", logger: logger)
                    .decode(String.self) { applied.insert(name) }
                var done: [String] = []
                for migration in Self.migrations where !applied.contains(migration.name) {
                    for statement in migration.statements {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
                    }
                    _ = try await connection.query("INSERT INTO pubnode_migrations (name) VALUES (\(migration.name))",
                                               logger: logger).collect()
                    done.append(migration.name)
                }
                return done
            }
        }
    }
}
