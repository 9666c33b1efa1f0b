/// The presence rules of one keyset: timeouts, the announce-max switch and the state size limit.
///
/// Node-wide defaults come from `Limits`; a keyset may override any of them (`Overrides`).
public struct PresenceSettings: Sendable, Equatable {
    /// Seconds a uuid stays present without a subscribe or heartbeat, when the client names none.
    public var timeoutSeconds: Int
    /// The shortest presence timeout a client may ask for; shorter requests are raised to it.
    public var minTimeoutSeconds: Int
    /// Occupancy above which per-uuid events give way to `interval` events.
    public var announceMax: Int
    /// Seconds between `interval` events of a channel above `announceMax`.
    public var intervalSeconds: Int
    /// Largest state object of one uuid on one channel, in bytes of JSON text.
    public var maxStateBytes: Int
    /// Largest event payload; an `interval` event whose deltas would exceed it says `here_now_refresh`.
    public var maxEventBytes: Int

    /// Per-keyset overrides of the node-wide presence limits; nil keeps the node's value.
    public struct Overrides: Sendable, Hashable, Codable {
        /// Overrides `Limits.presenceTimeoutSeconds`.
        public var presenceTimeoutSeconds: Int?
        /// Overrides `Limits.presenceMinTimeoutSeconds`.
        public var presenceMinTimeoutSeconds: Int?
        /// Overrides `Limits.announceMax`.
        public var announceMax: Int?
        /// Overrides `Limits.presenceIntervalSeconds`.
        public var presenceIntervalSeconds: Int?
        /// Overrides `Limits.maxStateBytes`.
        public var maxStateBytes: Int?

        /// No overrides.
        public init() {}
    }

    /// The node-wide settings of `limits`, with `overrides` applied.
    public init(limits: Limits, overrides: Overrides = Overrides()) {
        timeoutSeconds = overrides.presenceTimeoutSeconds ?? limits.presenceTimeoutSeconds
        minTimeoutSeconds = overrides.presenceMinTimeoutSeconds ?? limits.presenceMinTimeoutSeconds
        announceMax = overrides.announceMax ?? limits.announceMax
        intervalSeconds = overrides.presenceIntervalSeconds ?? limits.presenceIntervalSeconds
        maxStateBytes = overrides.maxStateBytes ?? limits.maxStateBytes
        maxEventBytes = limits.maxMessageBytes
    }

    /// The timeout in force for a client asking for `requested` seconds: absent or 0 means the
    /// keyset default, anything below the minimum is raised to it.
    public func timeout(requested: Int?) -> Int {
        guard let requested, requested > 0 else { return timeoutSeconds }
        return max(requested, minTimeoutSeconds)
    }

    /// Checks that every value is in range, naming the first one that is not.
    public func validate() throws(ConfigurationError) {
        let positive: [(String, Int)] = [
            ("presenceTimeoutSeconds", timeoutSeconds), ("presenceMinTimeoutSeconds", minTimeoutSeconds),
            ("announceMax", announceMax), ("presenceIntervalSeconds", intervalSeconds),
            ("maxStateBytes", maxStateBytes),
        ]
        for (name, value) in positive where value <= 0 {
            throw ConfigurationError("\(name) must be positive (got \(value))")
        }
        guard minTimeoutSeconds <= timeoutSeconds else {
            throw ConfigurationError("presenceMinTimeoutSeconds (\(minTimeoutSeconds)) must not exceed "
                                     + "presenceTimeoutSeconds (\(timeoutSeconds))")
        }
    }
}
