/// What can go wrong talking to Redis.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Redis answered with an error reply (its own words, e.g. `NOSCRIPT …`, `WRONGTYPE …`).
    case reply(String)
    /// The byte stream broke RESP framing; the connection is closed.
    case protocolViolation(String)
    /// The connection is closed (or was never open); the command may or may not have run.
    case connectionClosed
    /// The address could not be parsed.
    case invalidURL(String)
    /// An answer had an unexpected shape.
    case unexpectedReply(String)

    /// A sentence for logs.
    public var description: String {
        switch self {
        case .reply(let text): "Redis error: \(text)"
        case .protocolViolation(let text): "Redis protocol violation: \(text)"
        case .connectionClosed: "Redis connection closed"
        case .invalidURL(let text): "invalid Redis URL: \(text)"
        case .unexpectedReply(let text): "unexpected Redis reply: \(text)"
        }
    }
}
