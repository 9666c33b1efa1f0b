import Synchronization

/// A keyset as the node serves it: its keys, its broker and presence, whether it is disabled, and
/// its secret (which the operator may rotate).
///
/// Requests find it with one lookup in the `KeysetRegistry`; what they read on every request
/// (the seams, the Access Manager switch, the disabled flag, the secret's generation) is immutable
/// or atomic. The secret itself is read under a lock only to verify a signature or a token the
/// token cache has not seen.
public final class ServedKeyset: Sendable {
    /// Where a keyset comes from.
    public enum Origin: String, Sendable {
        /// The node's configuration (flags, environment, file); fixed for the node's life.
        case configured
        /// The admin API, at run time; kept in the access store across restarts.
        case created
    }

    /// The subscribe key: the keyset's name and channel space.
    public let subscribeKey: String
    /// The publish keys accepted (configured keysets may pair several with one subscribe key).
    public let publishKeys: Set<String>
    /// The publish key signatures are made with (the first configured).
    public let publishKey: String
    /// Whether Access Manager guards the keyset.
    public let accessManager: Bool
    /// Whether App Context changes are announced as `e: 2` events (off unless the keyset enables them).
    public let appContextEvents: Bool
    /// Where it comes from.
    public let origin: Origin
    /// Its presence overrides.
    public let presenceOverrides: PresenceSettings.Overrides
    /// Its own rate limits (nil fields: the node's defaults).
    public let rateLimits: RateLimits?
    /// Every request of the keyset takes a token here (nil: unlimited).
    public let requestLimiter: RateLimiter?
    /// Every publish, signal and fire also takes a token here (nil: unlimited).
    public let publishLimiter: RateLimiter?
    /// What the keyset has done since the node started.
    public let counters = KeysetCounters()
    let broker: any KeysetBroker
    let presence: any KeysetPresence
    private let secret: Mutex<String?>
    private let disabledFlag: Atomic<Bool>
    private let withdrawnFlag = Atomic<Bool>(false)
    private let secretGeneration: Atomic<UInt64>
    /// Generations come from one process-wide sequence, so a token cached for a keyset (even a
    /// deleted one whose subscribe key is reused) never matches another keyset or secret.
    private static let generations = Atomic<UInt64>(0)

    private static func nextGeneration() -> UInt64 {
        generations.add(1, ordering: .relaxed).newValue
    }

    /// Serves `keysets` (sharing one subscribe key) through `broker` and `presence`.
    init(_ keysets: [Keyset], origin: Origin, disabled: Bool = false, broker: any KeysetBroker,
         presence: any KeysetPresence, defaultLimits: RateLimits = .unlimited, clock: any WallClock = SystemWallClock()) {
        let first = keysets[0]
        subscribeKey = first.subscribeKey
        publishKeys = Set(keysets.map(\.publishKey))
        publishKey = first.publishKey
        accessManager = keysets.contains { $0.accessManager }
        appContextEvents = keysets.contains { $0.appContextEvents }
        self.origin = origin
        presenceOverrides = first.presence
        rateLimits = first.rateLimits
        let limits = (first.rateLimits ?? .unlimited).over(defaultLimits)
        requestLimiter = limits.requestLimiter(clock: clock)
        publishLimiter = limits.publishLimiter(clock: clock)
        secret = Mutex(keysets.lazy.compactMap(\.secretKey).first)
        disabledFlag = Atomic(disabled)
        secretGeneration = Atomic(Self.nextGeneration())
        self.broker = broker
        self.presence = presence
    }

    /// Whether the registry still serves this keyset: false once it is removed (deleted, or gone
    /// from the access store), for holders that keep it across requests instead of looking its key
    /// up each time. A keyset created again under the same key is another object.
    public var isServed: Bool { !withdrawnFlag.load(ordering: .acquiring) }

    /// Marks the keyset removed from the registry (`isServed` false from now on).
    func withdraw() { withdrawnFlag.store(true, ordering: .releasing) }

    /// The secret key, if any.
    public var secretKey: String? { secret.withLock { $0 } }

    /// The key tokens of this keyset are signed with: the subscribe key and the secret, so a token
    /// is bound to its keyset even where two keysets were configured with one secret.
    var tokenKey: String? { secretKey.map { subscribeKey + "\n" + $0 } }

    /// Bumped each time the secret changes: tokens verified under an older secret are verified again.
    public var generation: UInt64 { secretGeneration.load(ordering: .acquiring) }

    /// Whether requests are refused (the operator disabled the keyset).
    public var isDisabled: Bool { disabledFlag.load(ordering: .relaxed) }

    /// The keyset's description, secret included (for the access store and the admin API's answer
    /// to create and rotate).
    public var keyset: Keyset {
        Keyset(publishKey: publishKey, subscribeKey: subscribeKey, secretKey: secretKey, accessManager: accessManager,
               rateLimits: rateLimits, presence: presenceOverrides, appContextEvents: appContextEvents)
    }

    func setDisabled(_ disabled: Bool) {
        disabledFlag.store(disabled, ordering: .relaxed)
    }

    func replaceSecret(_ newSecret: String) {
        secret.withLock { $0 = newSecret }
        secretGeneration.store(Self.nextGeneration(), ordering: .releasing)
    }
}
