import Dispatch
import Synchronization

/// The node: the one application layer every operation goes through, free of any transport.
///
/// A transport (the HTTP front) decodes a request into one of the request values, calls the
/// matching method and encodes the result or the `PubNodeError` it throws. Every operation
/// authorizes **exactly once, inside**, through `authorize(_:)`, naming the operation and every
/// resource it touches, before it changes or reads anything. Behind the node sit its seams: the
/// `Broker` (timetokens, buffers, delivery, groups), the `PresenceManager`, `MessageHistory` and
/// the `HookEngine`.
public final class Node: Sendable {
    /// The configured key pairs (keysets created at run time are in `registry`).
    public let keysets: [Keyset]
    /// Every keyset served, configured or created, by subscribe key.
    public let registry: KeysetRegistry
    /// The limits in force.
    public let limits: Limits
    /// Publishing, buffering, delivery and channel groups.
    public let broker: any Broker
    /// Who is present where.
    public let presence: any PresenceManager
    /// The single authorization point: the operator's token for `administer`, the keyset policy
    /// for everything else.
    public let authorizer: NodeAuthorizer
    /// The server-side hooks (before, after and on-request).
    public let hooks: HookEngine
    /// The node's timetoken clock.
    public let clock: TimetokenClock
    /// Region number reported in timetoken objects and rendered into envelopes.
    public let region: Int
    /// Message history, when the node keeps it.
    public let history: MessageHistory?
    /// Message actions (reactions, receipts…) added to stored messages.
    public let messageActions: any MessageActionStore
    /// Rate limits of keysets that set none of their own.
    public let keysetRateLimits: RateLimits
    /// App Context objects: uuid and channel metadata, memberships.
    public let objects: any ObjectStore
    /// Signatures, tokens and revocations.
    let access: AccessControl
    /// Subscribe keys the tenants API is changing right now: one change per keyset at a time.
    let keysetChanges = Mutex<Set<String>>([])
    let validator = JSONValidator()
    /// Compiled filter expressions by text (subscribe filters, App Context queries).
    public let filters = FilterCache()
    /// History reads run here, never on the caller's thread (an event loop must not wait for SQLite).
    let historyReads = DispatchQueue(label: "pubnode.history.reads", attributes: .concurrent)

    /// Assembles a node from its seams. `authorizer` is a policy consulted after Access Manager;
    /// the operator's endpoints are always guarded by `adminToken` (refused without one), whatever
    /// the policy. `accessStore` keeps created keysets and revocations: call `restoreAccess()`
    /// before serving. After-presence hooks are fed by the presence store: a store built by hand
    /// needs `hooks.presenceObserver(subscribeKey:)` (the in-memory initializer does this).
    public init(keysets: [Keyset], limits: Limits, broker: any Broker, presence: any PresenceManager,
                clock: TimetokenClock, region: Int = 1, authorizer: any Authorizer = OpenAuthorizer(),
                adminToken: String? = nil, hooks: HookEngine = .none(), history: MessageHistory? = nil,
                accessStore: any AccessStore = MemoryAccessStore(), keysetRateLimits: RateLimits = .unlimited,
                messageActions: any MessageActionStore = MemoryMessageActionStore(),
                objects: any ObjectStore = MemoryObjectStore()) {
        self.keysets = keysets
        self.messageActions = messageActions
        self.objects = objects
        self.keysetRateLimits = keysetRateLimits
        self.limits = limits
        self.broker = broker
        self.presence = presence
        self.clock = clock
        self.region = region
        self.authorizer = NodeAuthorizer(policy: authorizer, adminToken: adminToken)
        self.hooks = hooks
        self.history = history
        self.access = AccessControl(clock: clock, store: accessStore)
        var order: [String] = []
        let grouped = Dictionary(grouping: keysets, by: \.subscribeKey)
        for keyset in keysets where !order.contains(keyset.subscribeKey) { order.append(keyset.subscribeKey) }
        registry = KeysetRegistry(configured: order.map { key in
            let group = grouped[key]!
            return ServedKeyset(group, origin: .configured, broker: broker.open(group[0]), presence: presence.open(group[0]),
                                defaultLimits: keysetRateLimits, clock: clock)
        })
    }

    /// A single node keeping everything in memory (`MemoryBroker`, `MemoryPresence`) for `keysets`.
    /// `adminToken` opens the operator's endpoints.
    public convenience init(keysets: [Keyset] = [.demo], limits: Limits = Limits(), clock: TimetokenClock = TimetokenClock(),
                            region: Int = 1, authorizer: any Authorizer = OpenAuthorizer(), adminToken: String? = nil,
                            hooks: HookEngine = .none(), history: MessageHistory? = nil,
                            accessStore: any AccessStore = MemoryAccessStore(), keysetRateLimits: RateLimits = .unlimited,
                            messageActions: any MessageActionStore = MemoryMessageActionStore(),
                            objects: any ObjectStore = MemoryObjectStore()) {
        let hubs = MemoryHubs(limits: limits, clock: clock, region: region, observer: hooks.presenceObserver(subscribeKey:))
        self.init(keysets: keysets, limits: limits, broker: MemoryBroker(hubs: hubs), presence: MemoryPresence(hubs: hubs),
                  clock: clock, region: region, authorizer: authorizer, adminToken: adminToken, hooks: hooks,
                  history: history, accessStore: accessStore, keysetRateLimits: keysetRateLimits,
                  messageActions: messageActions, objects: objects)
    }

    /// The single authorization point: every keyset operation calls it exactly once, before
    /// acting, and goes on with the keyset it returns. Refuses an unknown or disabled keyset, then
    /// asks Access Manager, then the keyset's rate limits, then the policy.
    @discardableResult
    func authorize(_ request: AccessRequest) throws(PubNodeError) -> ServedKeyset {
        let keyset = try servedKeyset(request.subscribeKey ?? "")
        try authorize(request, on: keyset)
        return keyset
    }

    /// `authorize(_:)` for an operation that found its keyset already (to report a bad key before
    /// it validates the rest of the request, as PubNub does). A keyset's rate limits count only
    /// requests that passed Access Manager, so strangers flooding a tenant's public keys cannot use
    /// up its budget (unauthenticated floods meet the per-client limits, and a cached token costs
    /// a lookup).
    ///
    /// The request is read only by the checks that need more than its operation: Access Manager
    /// where the keyset enforces it (or the operation manages tokens), and a policy other than the
    /// open one. What keeps a request (`AccessRequestSource`: a prepared subscribe) hands it to
    /// those checks in place, so a long-poll repeating a prepared subscribe on an open keyset reads
    /// none of it, where copying it out would read cache lines no longer in cache.
    func authorize<Source: AccessRequestSource>(_ source: Source, on keyset: ServedKeyset) throws(PubNodeError) {
        let operation = source.operation
        if keyset.isDisabled { throw .accessRefused("Keyset is disabled") }
        if AccessControl.applies(to: operation, on: keyset) {
            try source.withAccessRequest { (request) throws(PubNodeError) in try access.check(request, keyset: keyset) }
        }
        if let limiter = keyset.publishLimiter, operation.publishes, let retry = limiter.admit() {
            keyset.counters.publishRefusals.add(1, ordering: .relaxed)
            throw .tooManyRequests(retryAfter: retry)
        }
        if let limiter = keyset.requestLimiter, let retry = limiter.admit() {
            keyset.counters.requestRefusals.add(1, ordering: .relaxed)
            throw .tooManyRequests(retryAfter: retry)
        }
        if operation == .administer || !authorizer.allowsEveryKeysetOperation {
            try source.withAccessRequest { (request) throws(PubNodeError) in try authorizer.authorize(request) }
        }
    }

    /// The operator's endpoints' authorization, through the single authorization point: the
    /// admin token (`adminDisabled` without one, `unauthorized` for a wrong one), then the policy.
    /// Public for operator endpoints served outside the node (the HTTP front's client limits).
    public func authorizeAdmin(credential: String?) throws(PubNodeError) {
        try authorizer.authorize(AccessRequest(.administer, subscribeKey: nil, adminCredential: credential))
    }

    /// The served keyset of `subscribeKey`, or `invalidKey`.
    func servedKeyset(_ subscribeKey: String) throws(PubNodeError) -> ServedKeyset {
        guard let keyset = registry.keyset(subscribeKey) else { throw .invalidKey }
        return keyset
    }

    /// Throws `invalidKey` unless `subscribeKey` is configured: a transport reports a bad key before
    /// it decodes the rest of a request, as PubNub does.
    public func requireKeyset(_ subscribeKey: String) throws(PubNodeError) {
        guard serves(subscribeKey: subscribeKey) else { throw .invalidKey }
    }

    /// Throws `invalidKey` or `storageDisabled` unless `subscribeKey` keeps history.
    public func requireHistory(_ subscribeKey: String) throws(PubNodeError) {
        try requireKeyset(subscribeKey)
        guard let history, history.isEnabled(subscribeKey) else { throw .storageDisabled }
    }

    /// Whether `subscribeKey` is served here.
    public func serves(subscribeKey: String) -> Bool { registry.keyset(subscribeKey) != nil }

    /// The present timetoken (`/time/0`); public, so not authorized.
    public func time() -> Timetoken { clock.current() }
}
