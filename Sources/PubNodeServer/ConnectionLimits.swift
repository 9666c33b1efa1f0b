import PubNodeCore

/// The few of the node's `Limits` a connection reads on its requests, copied into its handler once.
///
/// A handler used to hold the whole `Limits` (216 bytes, over three cache lines of every
/// connection's handler) to read four numbers of it, two of them on every request: a fan-out to
/// thousands of subscribers then brought two more lines of each woken subscriber's handler in from
/// memory. These four fit beside the handler's other first fields.
struct ConnectionLimits: Sendable {
    /// Seconds a request may take to arrive completely from its first byte (`Limits.requestTimeoutSeconds`).
    let requestTimeoutSeconds: Int
    /// Seconds a long-poll stays parked before it is answered with no messages (`Limits.longPollTimeoutSeconds`).
    let longPollTimeoutSeconds: Int
    /// Most header fields in one request (`Limits.maxHeaderCount`).
    let maxHeaderCount: Int
    /// Largest request body, in bytes, as received and once inflated (`Limits.maxBodyBytes`).
    let maxBodyBytes: Int

    /// The four numbers of `limits`.
    init(_ limits: Limits) {
        requestTimeoutSeconds = limits.requestTimeoutSeconds
        longPollTimeoutSeconds = limits.longPollTimeoutSeconds
        maxHeaderCount = limits.maxHeaderCount
        maxBodyBytes = limits.maxBodyBytes
    }
}
