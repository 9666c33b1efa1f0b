/// A webhook as written in the configuration file, before it is bound to a client.
///
/// ```json
/// {"name": "audit", "event": "after-publish", "subscribeKey": "demo", "channels": ["chat.*"],
///  "url": "https://hooks.example.com/pubnode", "secret": "s3cret", "timeoutMs": 1000,
///  "policy": "fail-closed", "maxAttempts": 8}
/// ```
public struct HookSpec: Sendable, Equatable {
    /// Unique name.
    public var name: String
    /// When it runs.
    public var trigger: HookTrigger
    /// The keyset it is bound in.
    public var subscribeKey: String
    /// Channels (exact, `a.*`, or `*`), or for `on-request` the paths served.
    public var channels: [String]
    /// Where events are POSTed.
    public var url: String
    /// HMAC-SHA256 signing secret; unsigned when nil.
    public var secret: String?
    /// Longest wait for one call.
    public var timeoutMilliseconds = 1000
    /// Before hooks: what a failure does.
    public var policy: HookBinding.FailurePolicy = .failClosed
    /// After hooks: retries and bounds.
    public var delivery = HookBinding.DeliverySettings()
    /// Largest reply read, in bytes.
    public var maxReplyBytes = 64 * 1024
    /// On-request hooks: calls answered at once.
    public var maxConcurrentRequests = 64

    /// Creates a spec.
    public init(name: String, trigger: HookTrigger, subscribeKey: String, channels: [String], url: String,
                secret: String? = nil) {
        self.name = name
        self.trigger = trigger
        self.subscribeKey = subscribeKey
        self.channels = channels
        self.url = url
        self.secret = secret
    }
}
