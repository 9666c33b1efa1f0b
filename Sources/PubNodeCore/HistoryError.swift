/// A failure of the history store.
public enum HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database cannot be opened, is corrupt, or cannot be written at all.
    case unavailable(String)
    /// The disk (or the database's size limit) is full.
    case full(String)
    /// Any other read or write failure.
    case failed(String)

    /// Text for logs and error replies.
    public var description: String {
        switch self {
        case .unavailable(let why): return "history database unavailable: \(why)"
        case .full(let why): return "history disk full: \(why)"
        case .failed(let why): return "history storage failed: \(why)"
        }
    }
}
