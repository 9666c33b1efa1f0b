extension PostgresDatabase {
    /// App Context objects and memberships (`PostgresObjectStore`); JSON kept as the text the
    /// node rendered, so numbers and strings come back exactly as stored.
    static let appContextMigrations: [Migration] = [
        Migration(name: "v3: app context", statements: [
            """
            CREATE TABLE pubnode_object (
                subscribe_key text COLLATE "C" NOT NULL,
                kind text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                fields text NOT NULL,
                custom text,
                updated bigint NOT NULL,
                etag text NOT NULL,
                PRIMARY KEY (subscribe_key, kind, id)
            )
            """,
            """
            CREATE TABLE pubnode_membership (
                subscribe_key text COLLATE "C" NOT NULL,
                uuid text COLLATE "C" NOT NULL,
                channel text COLLATE "C" NOT NULL,
                status text,
                type text,
                custom text,
                updated bigint NOT NULL,
                etag text NOT NULL,
                PRIMARY KEY (subscribe_key, uuid, channel)
            )
            """,
            "CREATE INDEX pubnode_membership_by_channel ON pubnode_membership (subscribe_key, channel, uuid)",
        ]),
    ]

    /// Keysets created at run time and revoked tokens (`PostgresAccessStore`). `recorded_us` (the
    /// database's clock, microseconds) lets every node read only the revocations recorded lately.
    static let accessMigrations: [Migration] = [
        Migration(name: "v4: access", statements: [
            """
            CREATE TABLE pubnode_keyset (
                subscribe_key text COLLATE "C" PRIMARY KEY,
                publish_key text NOT NULL,
                secret_key text,
                access_manager boolean NOT NULL,
                disabled boolean NOT NULL,
                publishes_per_second double precision,
                requests_per_second double precision,
                app_context_events boolean NOT NULL DEFAULT false
            )
            """,
            """
            CREATE TABLE pubnode_revocation (
                subscribe_key text COLLATE "C" NOT NULL,
                token_id text COLLATE "C" NOT NULL,
                expires_at bigint NOT NULL,
                recorded_us bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,
                PRIMARY KEY (subscribe_key, token_id)
            )
            """,
            "CREATE INDEX pubnode_revocation_by_recorded ON pubnode_revocation (recorded_us)",
        ]),
    ]
}
