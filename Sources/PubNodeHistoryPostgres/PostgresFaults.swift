import PostgresNIO
import PubNodeCore

/// Classifies PostgreSQL failures into the cases of `HistoryError`, as SQLite's are: the database
/// away (refused, closed, timed out, read-only, shutting down) is `.unavailable`, a full disk or
/// exhausted resources is `.full`, anything else `.failed`. The node's policy (strict mode's 503,
/// readiness) reads only these cases.
enum PostgresFaults {
    /// The `HistoryError` of any error thrown by postgres-nio or the bridge.
    static func classify(_ error: any Error) -> HistoryError {
        if let error = error as? HistoryError { return error }
        if error is CancellationError { return .unavailable("PostgreSQL call cancelled") }
        if let transaction = error as? PostgresTransactionError,
           let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
            return classify(cause)
        }
        if let error = error as? PostgresDecodingError { return .failed("PostgreSQL row unreadable: \(error)") }
        guard let error = error as? PSQLError else {
            // Connection pool errors (circuit breaker tripped, pool shut down) and socket errors.
            return .unavailable("PostgreSQL: \(error)")
        }
        guard error.code == .server, let info = error.serverInfo else {
            return .unavailable("PostgreSQL: \(error.code)\(error.underlying.map { " (\($0))" } ?? "")")
        }
        let state = info[.sqlState] ?? ""
        let text = "\(info[.message] ?? "PostgreSQL error") (SQLSTATE \(state))"
        switch state {
        case "53100", "53200", "54000": return .full(text)
        case _ where state.hasPrefix("08"), _ where state.hasPrefix("57"), "25006", "53300":
            // Connection exceptions, operator intervention (shutdown, admin termination),
            // a read-only transaction (a standby), too many connections.
            return .unavailable(text)
        default: return .failed(text)
        }
    }
}
