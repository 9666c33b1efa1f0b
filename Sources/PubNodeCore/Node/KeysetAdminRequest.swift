import PubNodeAccessWire

/// An operator's request to the tenants API (`/v1/admin/keysets`), behind the admin token.
public struct KeysetAdminRequest: Sendable {
    /// What to do.
    public enum Action: Sendable, Equatable {
        /// List every keyset (secrets left out).
        case list
        /// Create a keyset; its keys are generated unless given.
        case create(KeysetSpec)
        /// Give a created keyset a new secret (tokens signed with the old one stop working).
        case rotate(subscribeKey: String)
        /// Refuse (true) or serve again (false) every request of a created keyset.
        case disable(subscribeKey: String, Bool)
        /// Delete a created keyset with its channels, groups, presence, history and tokens.
        case delete(subscribeKey: String)
        /// Not an action of the API.
        case unknown
    }

    /// The action.
    public var action: Action
    /// The operator's credential (`Authorization: Bearer …`).
    public var credential: String?

    /// Describes an admin request.
    public init(action: Action, credential: String?) {
        self.action = action
        self.credential = credential
    }
}

/// What a new keyset should be; anything left nil is generated.
public struct KeysetSpec: Sendable, Equatable {
    /// Its publish key (`pub-c-…` generated when nil).
    public var publishKey: String?
    /// Its subscribe key (`sub-c-…` generated when nil).
    public var subscribeKey: String?
    /// Whether Access Manager guards it (on by default: a tenant is private).
    public var accessManager: Bool
    /// Its rate limits (nil: the node's defaults).
    public var rateLimits: RateLimits?
    /// Whether App Context changes are announced as `e: 2` events (off by default).
    public var appContextEvents: Bool

    /// Describes a keyset to create.
    public init(publishKey: String? = nil, subscribeKey: String? = nil, accessManager: Bool = true,
                rateLimits: RateLimits? = nil, appContextEvents: Bool = false) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.accessManager = accessManager
        self.rateLimits = rateLimits
        self.appContextEvents = appContextEvents
    }
}

/// A keyset as the tenants API shows it.
public struct KeysetInfo: Sendable, Equatable {
    /// Its keys and settings; `secretKey` is set only in the answer to create and rotate.
    public var keyset: Keyset
    /// Whether it is disabled.
    public var disabled: Bool
    /// Where it comes from.
    public var origin: ServedKeyset.Origin
    /// Its request limiter's counters, when its requests are limited.
    public var requests: RateLimiterStats?
    /// Its publish limiter's counters, when its publishes are limited.
    public var publishes: RateLimiterStats?
}

/// The answer of the tenants API.
public enum KeysetAdminResult: Sendable, Equatable {
    /// Every keyset.
    case keysets([KeysetInfo])
    /// The keyset created or changed.
    case keyset(KeysetInfo)
    /// The subscribe key of the keyset deleted.
    case deleted(String)
}

extension KeysetSpec {
    /// Reads the tenants API's create body: an optional JSON object with `publishKey`,
    /// `subscribeKey` (strings), `accessManager` and `appContextEvents` (booleans) and `rateLimits`
    /// (`{"publishesPerSecond":N,"requestsPerSecond":N}`); an empty body asks for defaults.
    public init(json body: [UInt8]) throws(PubNodeError) {
        self.init()
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return }
        guard body.count <= 4096, let value = try? CBORValue(json: body), case .map(let fields) = value else {
            throw .invalidParameter("the body must be a JSON object")
        }
        for field in fields {
            switch (field.key, field.value) {
            case (.text("publishKey"), .text(let key)): publishKey = key
            case (.text("subscribeKey"), .text(let key)): subscribeKey = key
            case (.text("accessManager"), .bool(let on)): accessManager = on
            case (.text("appContextEvents"), .bool(let on)): appContextEvents = on
            case (.text("rateLimits"), .map(let limits)):
                var parsed = RateLimits()
                for limit in limits {
                    switch (limit.key, limit.value.number) {
                    case (.text("publishesPerSecond"), let rate?): parsed.publishesPerSecond = rate
                    case (.text("requestsPerSecond"), let rate?): parsed.requestsPerSecond = rate
                    default: throw .invalidParameter("rateLimits holds publishesPerSecond and requestsPerSecond, as numbers")
                    }
                }
                rateLimits = parsed
            case (.text(let name), _):
                throw .invalidParameter("'\(name.prefix(40))' is not a keyset field, or has the wrong type")
            default:
                throw .invalidParameter("the body must be a JSON object")
            }
        }
    }
}

extension CBORValue {
    /// The value as a number, if it is one.
    var number: Double? {
        switch self {
        case .unsigned(let value): return Double(value)
        case .negative(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}
