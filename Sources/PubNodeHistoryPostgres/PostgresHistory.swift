import Logging
import PubNodeCore

/// Composes a node's message history on a PostgreSQL database.
public enum PostgresHistory {
    /// Connects to `location` and applies the migrations, waiting up to `timeout` for the
    /// database. Throws `HistoryError` when it cannot be reached or migrated: the node must then
    /// refuse to start rather than pretend history works.
    public static func open(_ location: PostgresLocation, timeout: Duration = .seconds(5),
                            logger: Logger = Logger(label: "pubnode.history.postgres")) throws(HistoryError) -> PostgresDatabase {
        let database = PostgresDatabase(location, timeout: timeout, logger: logger)
        do {
            let applied = try database.migrate()
            if !applied.isEmpty { logger.info("history migrations applied", metadata: ["migrations": "\(applied)"]) }
        } catch {
            Task { await database.shutdown() }
            throw error
        }
        return database
    }

    /// Builds the history of the keysets in `policies` on an open database. In default mode what
    /// the database cannot take while it is away waits in the writer's bounded backlog.
    public static func history(database: PostgresDatabase, policies: [String: HistoryPolicy], created: HistoryPolicy? = nil,
                               clock: TimetokenClock, flushMilliseconds: Int, strict: Bool,
                               onWriteFailure: @escaping @Sendable (HistoryError, Int) -> Void,
                               onCommit: (@Sendable (HistoryWriter.CommitReport) -> Void)? = nil) -> MessageHistory {
        MessageHistory(store: PostgresHistoryStore(database: database), policies: policies, created: created, clock: clock,
                       flushMilliseconds: flushMilliseconds, strict: strict, bufferWhileUnavailable: true,
                       onWriteFailure: onWriteFailure,
                       onCommit: onCommit)
    }
}
