import PubNodeCore

/// Composes a node's message history on a SQLite file.
public enum SQLiteHistory {
    /// Opens the database at `path` and builds the history of the keysets in `policies`.
    ///
    /// Throws `HistoryError.unavailable` when the file cannot be opened, is corrupt or cannot be
    /// written: the node must then refuse to start rather than pretend history works.
    public static func open(path: String, policies: [String: HistoryPolicy], clock: TimetokenClock,
                            flushMilliseconds: Int, strict: Bool,
                            onWriteFailure: @escaping @Sendable (HistoryError, Int) -> Void) throws(HistoryError) -> MessageHistory {
        try history(database: HistoryDatabase.file(path: path), policies: policies, clock: clock,
                    flushMilliseconds: flushMilliseconds, strict: strict, onWriteFailure: onWriteFailure)
    }

    /// Builds the history of the keysets in `policies` on an open database (which the hook
    /// outbox may share).
    public static func history(database: HistoryDatabase, policies: [String: HistoryPolicy], created: HistoryPolicy? = nil,
                               clock: TimetokenClock, flushMilliseconds: Int, strict: Bool,
                               onWriteFailure: @escaping @Sendable (HistoryError, Int) -> Void,
                               onCommit: (@Sendable (HistoryWriter.CommitReport) -> Void)? = nil) -> MessageHistory {
        MessageHistory(store: SQLiteHistoryStore(database: database), policies: policies, created: created, clock: clock,
                       flushMilliseconds: flushMilliseconds, strict: strict, onWriteFailure: onWriteFailure,
                       onCommit: onCommit)
    }
}
