/// The node's domain façade: keysets, broker, authorization and hooks, free of any transport.
///
/// The HTTP front decodes requests into domain values and calls these methods; every domain rule
/// (names, JSON validity, sizes, fire semantics) is applied here once.
public final class Node: Sendable {
    /// The configured key pairs.
    public let keysets: [Keyset]
    /// The limits in force.
    public let limits: Limits
    /// Publishing and delivery.
    public let broker: any MessageBroker
    /// The authorization point.
    public let authorizer: any Authorizer
    /// The server-side hooks (before, after and on-request).
    public let hooks: HookEngine
    /// The node's timetoken clock.
    public let clock: TimetokenClock
    /// Region number rendered into envelopes the service builds itself (fire).
    public let region: Int
    /// Message history, when the node keeps it.
    public let history: MessageHistory?
    private let publishKeys: [String: Set<String>]
    private let validator = JSONValidator()

    /// Assembles the service. After-presence hooks are fed by the broker's presence trackers: a
    /// broker built here by hand needs `presenceObserver: hooks.presenceObserver(subscribeKey:)`
    /// (the in-memory convenience initializer does this).
    public init(keysets: [Keyset], limits: Limits, broker: any MessageBroker, clock: TimetokenClock, region: Int = 1,
                authorizer: any Authorizer = OpenAuthorizer(), hooks: HookEngine = .none(),
                history: MessageHistory? = nil) {
        self.keysets = keysets
        self.history = history
        self.region = region
        self.limits = limits
        self.broker = broker
        self.clock = clock
        self.authorizer = authorizer
        self.hooks = hooks
        self.publishKeys = Dictionary(grouping: keysets, by: \.subscribeKey).mapValues { Set($0.map(\.publishKey)) }
    }

    /// An in-memory node for `keysets`.
    public convenience init(keysets: [Keyset] = [.demo], limits: Limits = Limits(), clock: TimetokenClock = TimetokenClock(),
                            region: Int = 1, authorizer: any Authorizer = OpenAuthorizer(),
                            hooks: HookEngine = .none(), history: MessageHistory? = nil) {
        let broker = MemoryBroker(keysets: keysets, limits: limits, clock: clock, region: region,
                                  presenceObserver: hooks.presenceObserver(subscribeKey:))
        self.init(keysets: keysets, limits: limits, broker: broker, clock: clock, region: region,
                  authorizer: authorizer, hooks: hooks, history: history)
    }

    /// The broker of a subscribe key, or `invalidKey`.
    public func keyset(_ subscribeKey: String) throws(PubNodeError) -> any KeysetBroker {
        guard let broker = broker.keyset(subscribeKey) else { throw .invalidKey }
        return broker
    }

    /// Where a publish stands after validation.
    public enum PublishStep: Sendable {
        /// Accepted.
        case done(PublishResult)
        /// Validated; its before hooks must run (`complete(_:)`) before it is accepted.
        case awaitingHooks(PendingPublish)
    }

    /// A validated publish waiting for its before hooks.
    public struct PendingPublish: Sendable {
        /// The request as validated.
        public var request: PublishRequest
        /// The hooks to run, in order.
        public var hooks: [HookBinding]
    }

    /// The result of an accepted publish.
    public struct PublishResult: Sendable {
        /// The timetoken issued.
        public var timetoken: Timetoken
        /// Waiters to wake (empty for a fire).
        public var waiters: [any Waiter]
        /// The accepted message.
        public var message: PublishedMessage
        /// Strict history mode only: the history commit to wait for before acknowledging.
        public var commit: PendingCommit? = nil
    }

    /// Validates a publish, signal or fire and accepts it at once (`done`), or, when before hooks
    /// are bound to its channel, returns it for `complete(_:)` to run them first.
    public func begin(_ request: PublishRequest) throws(PubNodeError) -> PublishStep {
        guard publishKeys[request.subscribeKey]?.contains(request.publishKey) == true else { throw .invalidKey }
        let broker = try keyset(request.subscribeKey)
        let operation: AccessRequest.Operation = request.kind == .signal ? .signal : (request.isFire ? .fire : .publish)
        try authorizer.authorize(AccessRequest(operation: operation, subscribeKey: request.subscribeKey,
                                               publishKey: request.publishKey, channels: [request.channel],
                                               uuid: request.uuid, authKey: request.authKey))
        try validate(request)
        let before = hooks.isEmpty ? [] : hooks.beforeHooks(for: request.kind, subscribeKey: request.subscribeKey,
                                                             channel: request.channel)
        guard before.isEmpty else { return .awaitingHooks(PendingPublish(request: request, hooks: before)) }
        return .done(accept(request, broker: broker))
    }

    /// Runs a pending publish's before hooks, then accepts what they left (validated again) or
    /// refuses it with the status and text a hook gave.
    /// `executor` is where the hooks run (see `HookEngine.runBefore`).
    public func complete(_ pending: PendingPublish, executor: (any TaskExecutor)? = nil) async throws(PubNodeError) -> PublishResult {
        var request = pending.request
        let event = HookEvent(trigger: .before(request.kind), action: Self.action(request),
                              subscribeKey: request.subscribeKey, channel: request.channel, message: request.payload,
                              meta: request.meta, uuid: request.uuid, customMessageType: request.customMessageType)
        switch await hooks.runBefore(pending.hooks, event: event, executor: executor) {
        case .abort(let status, let text):
            throw .refusedByHook(status: status, text: text)
        case .proceed(let message, let meta):
            if message != request.payload || meta != request.meta {
                request.payload = message
                request.meta = meta
                do { try validate(request) } catch {
                    throw .refusedByHook(status: 500, text: "A hook's replacement message is invalid: \(error)")
                }
            }
        }
        return accept(request, broker: try keyset(request.subscribeKey))
    }

    /// Validates and accepts a publish, signal or fire, running any before hooks first.
    public func publish(_ request: PublishRequest) async throws(PubNodeError) -> PublishResult {
        switch try begin(request) {
        case .done(let result): return result
        case .awaitingHooks(let pending): return try await complete(pending)
        }
    }

    /// Buffers (or, for a fire, only hands to the hooks) a validated request.
    private func accept(_ request: PublishRequest, broker: any KeysetBroker) -> PublishResult {
        let draft = PublishDraft(channel: request.channel, payload: request.payload, meta: request.meta,
                                 publisher: request.uuid, kind: request.kind,
                                 customMessageType: request.customMessageType,
                                 store: request.kind == .message && request.store != false, ttlHours: request.ttlHours)
        if request.isFire {
            let message = PublishedMessage(draft: draft, timetoken: clock.next(), subscribeKey: request.subscribeKey,
                                           region: region, publishedAtNanoseconds: clock.nowNanoseconds())
            hooks.accepted(message, action: .fire, subscribeKey: request.subscribeKey)
            return PublishResult(timetoken: message.timetoken, waiters: [], message: message)
        }
        let outcome = broker.publish(draft)
        let commit = history?.record(outcome.message, subscribeKey: request.subscribeKey)
        hooks.accepted(outcome.message, action: Self.action(request), subscribeKey: request.subscribeKey)
        return PublishResult(timetoken: outcome.message.timetoken, waiters: outcome.waiters, message: outcome.message,
                             commit: commit)
    }

    private static func action(_ request: PublishRequest) -> HookAction {
        request.kind == .signal ? .signal : (request.isFire ? .fire : .publish)
    }

    private func validate(_ request: PublishRequest) throws(PubNodeError) {
        if NameRules.isWildcard(request.channel) { throw .publishToWildcard(request.channel) }
        do { try NameRules.validateWritable(request.channel) } catch { throw .invalidChannel(request.channel, error) }
        guard validator.isValidUTF8JSON(request.payload) else { throw .invalidJSON }
        if let meta = request.meta {
            guard validator.isValidUTF8JSON(meta) else { throw .invalidMeta }
        }
        if let ttl = request.ttlHours, ttl < 0 { throw .invalidParameter("ttl must be a non-negative number of hours") }
        if let type = request.customMessageType { try Self.validateCustomType(type) }
        if request.kind == .signal {
            guard request.payload.count <= limits.maxSignalBytes else { throw .signalTooLarge(limit: limits.maxSignalBytes) }
        } else {
            let size = request.countedSize + (request.meta.map { PublishRequest.urlEncodedLength($0) } ?? 0)
            guard size <= limits.maxMessageBytes else { throw .messageTooLarge(limit: limits.maxMessageBytes) }
        }
    }

    /// PubNub's rule: 3 to 50 characters, letters, digits, `-` and `_`, not starting with `-` or `_`.
    static func validateCustomType(_ type: String) throws(PubNodeError) {
        let bytes = Array(type.utf8)
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard bytes.count >= 3, bytes.count <= 50, allowed, bytes[0] != UInt8(ascii: "-"), bytes[0] != UInt8(ascii: "_") else {
            throw .invalidParameter("custom_message_type must be 3 to 50 letters, digits, '-' or '_'")
        }
    }
}
