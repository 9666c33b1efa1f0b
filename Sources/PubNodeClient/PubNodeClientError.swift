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
    /// Access Manager refused the request (HTTP 403): why, and which channels and groups.
    case accessDenied(AccessDenial)
    /// The node's rate limiter refused the request (HTTP 429); try again after `retryAfter` seconds.
    case rateLimited(retryAfter: Double?, message: String)
    /// The call was cancelled.
    case cancelled
    /// Encryption or decryption failed (wrong cipher key, damaged data, unknown cryptor).
    case crypto(String)

    /// The server's HTTP status, for `.server`.
    public var status: Int? {
        switch self {
        case .server(let status, _): return status
        case .accessDenied: return 403
        case .rateLimited: return 429
        default: return nil
        }
    }

    /// The server's message for `.server`, otherwise a description.
    public var message: String {
        switch self {
        case .server(_, let message), .rateLimited(_, let message): return message
        case .accessDenied(let denial): return denial.message
        case .transport(let text), .decoding(let text), .encoding(let text), .invalidArgument(let text),
             .crypto(let text): return text
        case .cancelled: return "cancelled"
        }
    }

    /// A one-line description.
    public var description: String {
        switch self {
        case .server(let status, let message): return "server error \(status): \(message)"
        case .accessDenied(let denial): return "access denied: \(denial)"
        case .rateLimited(let retryAfter, let message):
            return "rate limited: \(message)" + (retryAfter.map { " (retry after \($0) s)" } ?? "")
        case .transport(let text): return "transport error: \(text)"
        case .decoding(let text): return "decoding error: \(text)"
        case .encoding(let text): return "encoding error: \(text)"
        case .invalidArgument(let text): return "invalid argument: \(text)"
        case .crypto(let text): return "crypto error: \(text)"
        case .cancelled: return "cancelled"
        }
    }

    /// Whether retrying the same request may succeed (network failures, 429 and 5xx answers).
    public var isRetryable: Bool {
        switch self {
        case .transport, .rateLimited: return true
        case .server(let status, _): return status >= 500 || status == 429
        default: return false
        }
    }
}

/// Why Access Manager refused a request: its message and the resources it names.
public struct AccessDenial: Sendable, Equatable, CustomStringConvertible {
    /// The node's message, e.g. `"Forbidden"` or `"Token is expired."`.
    public var message: String
    /// The channels the request had no permission for.
    public var channels: [String]
    /// The channel groups the request had no permission for (without the `:` prefix of the wire).
    public var channelGroups: [String]

    /// A refusal.
    public init(message: String, channels: [String] = [], channelGroups: [String] = []) {
        self.message = message
        self.channels = channels
        self.channelGroups = channelGroups
    }

    /// The message, then the denied channels and groups.
    public var description: String {
        var parts = [message]
        if !channels.isEmpty { parts.append("channels " + channels.joined(separator: ", ")) }
        if !channelGroups.isEmpty { parts.append("groups " + channelGroups.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
