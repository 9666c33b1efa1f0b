import Foundation

/// Everything a `PubNodeClient` needs to reach a node.
public struct PubNodeConfiguration: Sendable, Equatable {
    /// The publish key (needed for publish, signal and fire).
    public var publishKey: String?
    /// The subscribe key.
    public var subscribeKey: String
    /// The client's user id, sent as `uuid`.
    public var userId: String
    /// Host and port of the node, e.g. `"127.0.0.1:8090"`.
    public var origin: String
    /// Whether to use `https` (otherwise `http`).
    public var secure: Bool
    /// Presence timeout in seconds sent as `heartbeat` (`0`: the node's default).
    public var presenceTimeout: Int
    /// Seconds between heartbeats while subscribed (`0`: no heartbeat timer).
    public var heartbeatInterval: Int
    /// Timeout of ordinary requests, in seconds.
    public var requestTimeout: Double
    /// Timeout of subscribe long-polls, in seconds (longer than the node's 280 s long-poll).
    public var subscribeRequestTimeout: Double
    /// How the subscription retries after failures.
    public var retryPolicy: RetryPolicy
    /// Optional access token, sent as `auth`; replace it at run time with `PubNodeClient.set(token:)`.
    public var authToken: String?
    /// The keyset's secret key: with it the client signs every request (`timestamp` and
    /// `signature`) and may grant and revoke tokens. Keep it on servers, never in end-user apps.
    public var secretKey: String?
    /// Seconds before the access token expires at which `tokenNearingExpiry` is reported.
    public var tokenExpiryWarning: Double
    /// The `pnsdk` value sent with every request.
    public var sdkName: String
    /// Capacity of the cache of recently delivered messages used to drop duplicates.
    public var dedupeCacheSize: Int
    /// Whether a subscription that fell behind a channel's buffer (the node's answer names it in
    /// `missed`) reads the messages it missed from history and delivers them, in order, before
    /// newer ones. On by default; it needs storage on the keyset. Not done with a
    /// `filterExpression`, which history reads cannot apply.
    public var fillsGapsFromHistory = true
    /// Encrypts published messages and decrypts received and stored ones (signals are never
    /// encrypted); nil sends and reads payloads as they are.
    public var cryptoModule: CryptoModule?
    /// A filter expression the node applies to this client's subscription (sent as `filter-expr`
    /// on every subscribe request), e.g. `meta.lang == 'en'`.
    public var filterExpression: String?

    /// A configuration; only the subscribe key and user id are required.
    public init(publishKey: String? = nil, subscribeKey: String, userId: String, origin: String = "127.0.0.1:8090",
                secure: Bool = false, presenceTimeout: Int = 0, heartbeatInterval: Int = 0,
                requestTimeout: Double = 10, subscribeRequestTimeout: Double = 310,
                retryPolicy: RetryPolicy = .default, authToken: String? = nil, dedupeCacheSize: Int = 1000,
                secretKey: String? = nil, tokenExpiryWarning: Double = 60,
                sdkName: String = "PubNodeClient-Swift/1.0", cryptoModule: CryptoModule? = nil,
                filterExpression: String? = nil) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.userId = userId
        self.origin = origin
        self.secure = secure
        self.presenceTimeout = presenceTimeout
        self.heartbeatInterval = heartbeatInterval
        self.requestTimeout = requestTimeout
        self.subscribeRequestTimeout = subscribeRequestTimeout
        self.retryPolicy = retryPolicy
        self.authToken = authToken
        self.dedupeCacheSize = dedupeCacheSize
        self.secretKey = secretKey
        self.tokenExpiryWarning = tokenExpiryWarning
        self.sdkName = sdkName
        self.cryptoModule = cryptoModule
        self.filterExpression = filterExpression
    }

    /// `http://origin` or `https://origin`.
    public var baseURL: String { (secure ? "https://" : "http://") + origin }
}
