import Dispatch

/// The node: the one application layer every operation goes through, free of any transport.
///
/// A transport (the HTTP front) decodes a request into one of the request values, calls the
/// matching method and encodes the result or the `PubNodeError` it throws. Every operation
/// authorizes **exactly once, inside**, through `authorize(_:)`, naming the operation and every
/// resource it touches, before it changes or reads anything. Behind the node sit its seams: the
/// `Broker` (timetokens, buffers, delivery, groups), the `PresenceManager`, `MessageHistory` and
/// the `HookEngine`.
public final class Node: Sendable {
    /// The configured key pairs.
    public let keysets: [Keyset]
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
    let publishKeys: [String: Set<String>]
    /// Each configured keyset's broker and presence, found with one lookup per request.
    let seams: [String: (broker: any KeysetBroker, presence: any KeysetPresence)]
    let validator = JSONValidator()
    /// History reads run here, never on the caller's thread (an event loop must not wait for SQLite).
    let historyReads = DispatchQueue(label: "pubnode.history.reads", attributes: .concurrent)

    /// Assembles a node from its seams. `authorizer` is the keyset policy; the operator's
    /// endpoints are always guarded by `adminToken` (refused without one), whatever the policy.
    /// After-presence hooks are fed by the presence store: a store built by hand needs
    /// `hooks.presenceObserver(subscribeKey:)` (the in-memory initializer does this).
    public init(keysets: [Keyset], limits: Limits, broker: any Broker, presence: any PresenceManager,
                clock: TimetokenClock, region: Int = 1, authorizer: any Authorizer = OpenAuthorizer(),
                adminToken: String? = nil, hooks: HookEngine = .none(), history: MessageHistory? = nil) {
        self.keysets = keysets
        self.limits = limits
        self.broker = broker
        self.presence = presence
        self.clock = clock
        self.region = region
        self.authorizer = NodeAuthorizer(policy: authorizer, adminToken: adminToken)
        self.hooks = hooks
        self.history = history
        self.publishKeys = Dictionary(grouping: keysets, by: \.subscribeKey).mapValues { Set($0.map(\.publishKey)) }
        var seams: [String: (broker: any KeysetBroker, presence: any KeysetPresence)] = [:]
        for keyset in keysets {
            guard let keysetBroker = broker.keyset(keyset.subscribeKey),
                  let keysetPresence = presence.keyset(keyset.subscribeKey) else { continue }
            seams[keyset.subscribeKey] = (keysetBroker, keysetPresence)
        }
        self.seams = seams
    }

    /// A single node keeping everything in memory (`MemoryBroker`, `MemoryPresence`) for `keysets`.
    /// `adminToken` opens the operator's endpoints.
    public convenience init(keysets: [Keyset] = [.demo], limits: Limits = Limits(), clock: TimetokenClock = TimetokenClock(),
                            region: Int = 1, authorizer: any Authorizer = OpenAuthorizer(), adminToken: String? = nil,
                            hooks: HookEngine = .none(), history: MessageHistory? = nil) {
        var seen = Set<String>()
        let hubs = keysets.filter { seen.insert($0.subscribeKey).inserted }.map { keyset in
            ChannelHub(subscribeKey: keyset.subscribeKey, limits: limits, clock: clock, region: region,
                       presence: keyset.presenceSettings(limits),
                       presenceObserver: hooks.presenceObserver(subscribeKey: keyset.subscribeKey))
        }
        self.init(keysets: keysets, limits: limits, broker: MemoryBroker(hubs: hubs), presence: MemoryPresence(hubs: hubs),
                  clock: clock, region: region, authorizer: authorizer, adminToken: adminToken, hooks: hooks,
                  history: history)
    }

    /// The single authorization point: every operation calls it exactly once, before acting.
    func authorize(_ request: AccessRequest) throws(PubNodeError) {
        try authorizer.authorize(request)
    }

    /// The broker of a subscribe key, or `invalidKey`.
    func keysetBroker(_ subscribeKey: String) throws(PubNodeError) -> any KeysetBroker {
        guard let seam = seams[subscribeKey] else { throw .invalidKey }
        return seam.broker
    }

    /// The presence of a subscribe key, or `invalidKey`.
    func keysetPresence(_ subscribeKey: String) throws(PubNodeError) -> any KeysetPresence {
        guard let seam = seams[subscribeKey] else { throw .invalidKey }
        return seam.presence
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

    /// Whether `subscribeKey` is configured here.
    public func serves(subscribeKey: String) -> Bool { seams[subscribeKey] != nil }

    /// The present timetoken (`/time/0`); public, so not authorized.
    public func time() -> Timetoken { clock.current() }
}
