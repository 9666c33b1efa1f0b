import Foundation

/// Errors of `PubNodeClient` calls.
public enum PubNodeClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node refused the request: its HTTP status and message (e.g. `400`, `"Invalid Key"`).
    case server(status: Int, message: String)
    /// The request did not reach the node or its answer did not come back.
    case transport(String)
    /// The answer (or a received payload) could not be decoded as expected.
    case decoding(String)
    /// A value could not be encoded as JSON.
    case encoding(String)
    /// An argument was refused before sending (e.g. no channels given).
    case invalidArgument(String)
    /// The call was cancelled.
    case cancelled

    /// The server's HTTP status, for `.server`.
    public var status: Int? {
        if case .server(let status, _) = self { return status }
        return nil
    }

    /// The server's message for `.server`, otherwise a description.
    public var message: String {
        switch self {
        case .server(_, let message): return message
        case .transport(let text), .decoding(let text), .encoding(let text), .invalidArgument(let text): return text
        case .cancelled: return "cancelled"
        }
    }

    /// A one-line description.
    public var description: String {
        switch self {
        case .server(let status, let message): return "server error \(status): \(message)"
        case .transport(let text): return "transport error: \(text)"
        case .decoding(let text): return "decoding error: \(text)"
        case .encoding(let text): return "encoding error: \(text)"
        case .invalidArgument(let text): return "invalid argument: \(text)"
        case .cancelled: return "cancelled"
        }
    }

    /// Whether retrying the same request may succeed (network failures and 5xx answers).
    public var isRetryable: Bool {
        switch self {
        case .transport: return true
        case .server(let status, _): return status >= 500 || status == 429
        default: return false
        }
    }
}
