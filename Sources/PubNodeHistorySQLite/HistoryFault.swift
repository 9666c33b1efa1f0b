/// Why the history files found at start-up cannot be used without losing what they held.
public struct HistoryFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of fault.
    public enum Kind: String, Sendable {
        /// The database file is gone while `history.id` says one was created.
        case missing
        /// The database file has no bytes.
        case empty
        /// The file is not an SQLite database (damaged or overwritten header).
        case notADatabase = "not a database"
        /// The file is shorter than its header says.
        case truncated
        /// The write-ahead log holds frames but fails its checks, so SQLite would ignore it. Not a
        /// fault that stops start-up: the log is moved aside; only when that fails is it thrown.
        case logDamaged = "write-ahead log damaged"
        /// SQLite refused the file, or `PRAGMA quick_check` found damage.
        case unusable
        /// The database is not the one `history.id` names.
        case otherDatabase = "a different database"
        /// `history.id` cannot be read.
        case markerUnreadable = "history.id unreadable"
    }

    /// The kind of fault.
    public var kind: Kind
    /// The file at fault.
    public var file: String
    /// What was found.
    public var detail: String

    /// Creates a fault.
    public init(_ kind: Kind, file: String, detail: String) {
        self.kind = kind
        self.file = file
        self.detail = detail
    }

    /// One line for the log: the file, the fault and the recovery.
    public var description: String {
        "\(file): \(kind.rawValue) (\(detail))"
    }

    /// What the operator can do, for the log.
    public static let recovery = "restore the data directory from a backup (the Storage section of Docs/operations.md), "
        + "or start once with --history-accept-empty true to move the damaged files aside "
        + "(*.damaged-<time>, never deleted) and start with empty history"
}
