/// One configured hook: what it listens to, who handles it and how failures are treated.
public struct HookBinding: Sendable {
    /// The handler behind a binding; its kind must match the trigger.
    public enum Handler: Sendable {
        /// For `before-publish` and `before-signal`.
        case before(any BeforeHookHandler)
        /// For `after-publish`, `after-signal` and `after-presence`.
        case after(any AfterHookHandler)
        /// For `on-request`.
        case request(any RequestHookHandler)
    }

    /// What a before hook's failure (error, timeout, malformed reply) does to the message.
    public enum FailurePolicy: String, Sendable {
        /// Accept the message unchanged, and log it.
        case failOpen = "fail-open"
        /// Refuse the message with 503, and log it.
        case failClosed = "fail-closed"
    }

    /// Unique name, used in logs, delivery headers, the outbox and the admin endpoints.
    public var name: String
    /// When it runs.
    public var trigger: HookTrigger
    /// The keyset it is bound in.
    public var subscribeKey: String
    /// Channels: exact names, wildcards (`a.*`, `a.b.*`) or `*` for every channel of the keyset.
    /// For `on-request` hooks: the paths served (exact, or `*`).
    public var channels: [String]
    /// The handler.
    public var handler: Handler
    /// Where the handler lives, for the start-up log (a URL, or "in-process").
    public var target: String
    /// Longest wait for one call.
    public var timeout: Duration = .seconds(1)
    /// Before hooks: what a failure does.
    public var policy: FailurePolicy = .failClosed
    /// After hooks: retries and outbox bounds.
    public var delivery = DeliverySettings()
    /// On-request hooks: calls answered at once; more get 503 at once.
    public var maxConcurrentRequests = 64
    /// True when the handler applies `timeout` itself (webhooks: the HTTP client's deadline), so
    /// after deliveries need no separate timer.
    public var enforcesTimeout = false

    /// Creates a binding.
    public init(name: String, trigger: HookTrigger, subscribeKey: String, channels: [String], handler: Handler,
                target: String = "in-process") {
        self.name = name
        self.trigger = trigger
        self.subscribeKey = subscribeKey
        self.channels = channels
        self.handler = handler
        self.target = target
    }

    /// How an after hook's events are retried and bounded.
    public struct DeliverySettings: Sendable, Equatable {
        /// Attempts before an event is dead-lettered (the first one included).
        public var maxAttempts = 8
        /// First retry delay; doubled each attempt, spread over the upper half of each delay.
        public var baseDelay: Duration = .milliseconds(500)
        /// Longest retry delay.
        public var maxDelay: Duration = .seconds(300)
        /// Events waiting in memory at most. Without a store newer events are dropped (and
        /// counted) beyond it; with one they wait in the store only (spilled).
        public var capacity = 10_000
        /// With a store: events (rows, not bytes) waiting in the store past `capacity` at most;
        /// newer events are dropped (counted, and logged as errors) beyond it. Memory holds at most
        /// twice `capacity` events whatever the store does.
        public var maxSpilledEvents = 1_000_000
        /// Dead letters kept at most; the oldest are discarded (and counted) beyond it.
        public var deadLetterCapacity = 10_000
        /// Deliveries in flight at once.
        public var concurrency = 4
        /// Events handed over in one call (one webhook POST); 1 sends each event on its own.
        public var maxBatch = 1

        /// The defaults.
        public init() {}
    }

    /// Checks the binding's names and that its handler fits its trigger.
    public func validate() throws(HookConfigurationError) {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw HookConfigurationError("hook name '\(name)' must be 1 to 64 letters, digits, '.', '-' or '_'")
        }
        guard !channels.isEmpty else { throw HookConfigurationError("hook \(name): channels must not be empty") }
        switch (handler, trigger) {
        case (.before, .beforePublish), (.before, .beforeSignal), (.request, .onRequest): break
        case (.after, let trigger) where trigger.isAfter: break
        default: throw HookConfigurationError("hook \(name): its handler does not fit trigger \(trigger.rawValue)")
        }
        guard timeout > .zero else { throw HookConfigurationError("hook \(name): timeout must be positive") }
        guard delivery.baseDelay > .zero, delivery.maxDelay >= delivery.baseDelay else {
            throw HookConfigurationError("hook \(name): retryMaxMs must be at least retryBaseMs")
        }
        guard delivery.maxAttempts >= 1, delivery.capacity >= 1, delivery.concurrency >= 1,
              delivery.deadLetterCapacity >= 1, maxConcurrentRequests >= 1, delivery.maxBatch >= 1 else {
            throw HookConfigurationError("hook \(name): maxAttempts, capacity and concurrency must be at least 1")
        }
        guard delivery.maxSpilledEvents >= 0 else {
            throw HookConfigurationError("hook \(name): maxSpilledEvents must not be negative")
        }
        if trigger == .onRequest { return }
        for channel in channels where channel != "*" {
            if NameRules.isWildcard(channel) {
                do { _ = try NameRules.wildcardPrefix(channel) } catch {
                    throw HookConfigurationError("hook \(name): '\(channel)' is not a valid wildcard (a.* or a.b.*)")
                }
            } else {
                do { try NameRules.validateWritable(channel) } catch {
                    throw HookConfigurationError("hook \(name): '\(channel)' is not a valid channel name")
                }
            }
        }
    }
}

/// A hook configuration that cannot be used.
public struct HookConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
