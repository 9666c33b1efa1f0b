extension Node {
    /// Where a publish stands after validation.
    public enum PublishStep: Sendable {
        /// Accepted.
        case done(PublishResult)
        /// Validated; its before hooks must run (`complete(_:)`) before it is accepted.
        case awaitingHooks(PendingPublish)
        /// Being accepted by a broker that issues timetokens elsewhere (a cluster).
        case accepting(PublishAcceptance)
    }

    /// A publish a clustered broker is accepting.
    public struct PublishAcceptance: Sendable {
        let start: @Sendable (@escaping @Sendable (Result<PublishResult, PubNodeError>) -> Void) -> Void

        /// Runs the acceptance; `done` is called exactly once, on any thread.
        public func whenDone(_ done: @escaping @Sendable (Result<PublishResult, PubNodeError>) -> Void) { start(done) }

        /// The result, awaited.
        public func value() async throws(PubNodeError) -> PublishResult {
            let result = await withCheckedContinuation { continuation in whenDone { continuation.resume(returning: $0) } }
            return try result.get()
        }
    }

    /// A validated publish waiting for its before hooks.
    public struct PendingPublish: Sendable {
        /// The request as validated.
        public var request: PublishRequest
        /// The hooks to run, in order.
        public var hooks: [HookBinding]
        /// The keyset it was authorized on: accepted only there, and only if still served.
        let keyset: ServedKeyset
    }

    /// The result of an accepted publish.
    public struct PublishResult: Sendable {
        /// The timetoken issued.
        public var timetoken: Timetoken
        /// The accepted message.
        public var message: PublishedMessage
        /// Strict history mode only: the history commit to wait for before acknowledging.
        public var commit: PendingCommit? = nil
    }

    /// Validates a publish, signal or fire and accepts it at once (`done`), or, when before hooks
    /// are bound to its channel, returns it for `complete(_:)` to run them first.
    public func begin(_ request: PublishRequest) throws(PubNodeError) -> PublishStep {
        let keyset = try publishingKeyset(request, access: Self.publishAccess(request))
        try validate(request)
        return hooked(request, payload: request.payload, keyset: keyset)
    }

    /// The keyset `request` publishes to: served, its publish key one of the keyset's, and
    /// `access` (the request's) authorized there. Every publish, prepared or not, starts here.
    func publishingKeyset(_ request: PublishRequest, access: AccessRequest) throws(PubNodeError) -> ServedKeyset {
        let keyset = try servedKeyset(request.subscribeKey)
        guard keyset.publishKeys.contains(request.publishKey) else { throw .invalidKey }
        try authorize(access, on: keyset)
        return keyset
    }

    /// A validated and authorized request carrying `payload` (its own, or a prepared request's new
    /// one): accepted at once, or returned for its before hooks. The request is read in place.
    /// `channel`: a prepared publish's channel state (see `accept`).
    func hooked(_ request: PublishRequest, payload: [UInt8], keyset: ServedKeyset,
                channel: PublishChannel? = nil) -> PublishStep {
        let before = hooks.isEmpty ? [] : hooks.beforeHooks(for: request.kind, subscribeKey: request.subscribeKey,
                                                             channel: request.channel)
        guard before.isEmpty else {
            var pending = request
            pending.payload = payload
            return .awaitingHooks(PendingPublish(request: pending, hooks: before, keyset: keyset))
        }
        return accept(request, payload: payload, keyset: keyset, channel: channel)
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
        // The hooks may have taken seconds: the keyset must still be the one authorized, and enabled.
        guard registry.keyset(request.subscribeKey) === pending.keyset else { throw .invalidKey }
        if pending.keyset.isDisabled { throw .accessRefused("Keyset is disabled") }
        switch accept(request, payload: request.payload, keyset: pending.keyset) {
        case .done(let result): return result
        case .accepting(let acceptance): return try await acceptance.value()
        case .awaitingHooks: throw .storageFailed("hooks ran twice")
        }
    }

    /// Validates and accepts a publish, signal or fire, running any before hooks first.
    public func publish(_ request: PublishRequest) async throws(PubNodeError) -> PublishResult {
        switch try begin(request) {
        case .done(let result): return result
        case .awaitingHooks(let pending): return try await complete(pending)
        case .accepting(let acceptance): return try await acceptance.value()
        }
    }

    /// Buffers (or, for a fire, only hands to the hooks) a validated request: at once (`done`), or,
    /// with a clustered broker, once the cluster has given it its timetoken (`accepting`). With
    /// `channel`, a prepared publish's, the broker publishes through the channel state kept with
    /// `keyset`, and a state it used instead is kept for the next.
    func accept(_ request: PublishRequest, payload: [UInt8], keyset: ServedKeyset,
                channel: PublishChannel? = nil) -> PublishStep {
        keyset.counters.accepted(request.kind, fire: request.isFire)
        let action = Self.action(request)
        if request.isFire {
            let message = PublishedMessage(draft: Self.draft(request, payload: payload), timetoken: clock.next(),
                                           subscribeKey: request.subscribeKey, region: region,
                                           publishedAtNanoseconds: clock.nowNanoseconds())
            hooks.accepted(message, action: .fire, subscribeKey: request.subscribeKey)
            return .done(PublishResult(timetoken: message.timetoken, message: message))
        }
        guard keyset.broker.acceptsSynchronously else {
            // The history record and the after hooks belong to the accepting node alone, so each
            // message is stored and hooked once in the whole cluster.
            let (broker, history, hooks) = (keyset.broker, history, hooks)
            let draft = Self.draft(request, payload: payload)
            return .accepting(PublishAcceptance { done in
                broker.submit(draft) { outcome in
                    done(outcome.map { message in
                        let commit = history?.record(message, subscribeKey: request.subscribeKey)
                        hooks.accepted(message, action: action, subscribeKey: request.subscribeKey)
                        return PublishResult(timetoken: message.timetoken, message: message, commit: commit)
                    })
                }
            })
        }
        var commit: PendingCommit?
        var state = channel?.state
        // A prepared publish's draft is its template with the payload put in (one copy of it),
        // rather than each field of the request copied again. (Bound here, on this path alone: a
        // draft bound where the escaping closure above also captures it was copied whole.)
        var draft: PublishDraft
        if let prepared = channel?.prepared {
            draft = prepared.draft
            draft.payload = payload
        } else {
            draft = Self.draft(request, payload: payload)
        }
        let message = keyset.broker.publish(draft, keeping: &state) { message in
            commit = history?.record(message, subscribeKey: request.subscribeKey)
        }
        if let channel, state !== channel.state { channel.prepared.keep(state, of: keyset) }
        hooks.accepted(message, action: action, subscribeKey: request.subscribeKey)
        return .done(PublishResult(timetoken: message.timetoken, message: message, commit: commit))
    }

    /// The draft a validated `request` becomes.
    static func draft(_ request: PublishRequest, payload: [UInt8]) -> PublishDraft {
        PublishDraft(channel: request.channel, payload: payload, meta: request.meta, publisher: request.uuid,
                     kind: request.kind, customMessageType: request.customMessageType,
                     store: request.kind == .message && request.store != false, ttlHours: request.ttlHours)
    }

    private static func action(_ request: PublishRequest) -> HookAction {
        request.kind == .signal ? .signal : (request.isFire ? .fire : .publish)
    }

    private func validate(_ request: PublishRequest) throws(PubNodeError) {
        try validateChannel(request)
        guard validator.isValidUTF8JSON(request.payload) else { throw .invalidJSON }
        try validateParameters(request)
        try validateSize(request, payload: request.payload)
    }

    /// The channel's checks: not a wildcard, and a name that may be written to.
    func validateChannel(_ request: PublishRequest) throws(PubNodeError) {
        if NameRules.isWildcard(request.channel) { throw .publishToWildcard(request.channel) }
        do { try NameRules.validateWritable(request.channel) } catch { throw .invalidChannel(request.channel, error) }
    }

    /// The checks of the query's values: `meta` JSON, `ttl` and `custom_message_type`.
    func validateParameters(_ request: PublishRequest) throws(PubNodeError) {
        if let meta = request.meta {
            guard validator.isValidUTF8JSON(meta) else { throw .invalidMeta }
        }
        if let ttl = request.ttlHours, ttl < 0 { throw .invalidParameter("ttl must be a non-negative number of hours") }
        if let type = request.customMessageType { try Self.validateCustomType(type) }
    }

    /// The size limit for `request` carrying `payload` (its own, or a prepared request's new one):
    /// a signal's payload, or a message's counted size with its `meta`.
    func validateSize(_ request: PublishRequest, payload: [UInt8]) throws(PubNodeError) {
        if request.kind == .signal {
            guard payload.count <= limits.maxSignalBytes else { throw .signalTooLarge(limit: limits.maxSignalBytes) }
        } else {
            let size = request.countedSize(payload: payload) + (request.meta.map { PublishRequest.urlEncodedLength($0) } ?? 0)
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
