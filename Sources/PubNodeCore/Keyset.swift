/// A publish/subscribe key pair: the unit of isolation. Channels, groups, buffers and presence of
/// one subscribe key are invisible to every other.
public struct Keyset: Sendable, Equatable, Hashable, Codable {
    /// The key publishers present.
    public var publishKey: String
    /// The key subscribers present; it names the keyset's channel space.
    public var subscribeKey: String
    /// This keyset's overrides of the node-wide presence limits.
    public var presence: PresenceSettings.Overrides
    /// The secret key: it signs requests (which then act with full access) and Access Manager
    /// tokens. Nil: no signatures, no tokens.
    public var secretKey: String?
    /// Whether Access Manager guards the keyset: every request needs a valid token or signature.
    /// Off, the keyset is open, as the demo keyset is.
    public var accessManager: Bool
    /// This keyset's rate limits; nil (or nil fields) falls back to the node's defaults.
    public var rateLimits: RateLimits?
    /// Whether App Context changes (uuid and channel metadata, memberships) are announced to
    /// subscribers as `e: 2` events. Off by default, as on PubNub, where each kind is enabled per
    /// keyset: some SDKs (the Python SDK 10.8.0) stop receiving after the first such event.
    public var appContextEvents: Bool

    /// Creates a key pair; Access Manager is on when a secret is given unless `accessManager` says otherwise.
    public init(publishKey: String, subscribeKey: String, secretKey: String? = nil, accessManager: Bool? = nil,
                rateLimits: RateLimits? = nil, presence: PresenceSettings.Overrides = .init(),
                appContextEvents: Bool = false) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.secretKey = secretKey
        self.accessManager = accessManager ?? (secretKey != nil)
        self.rateLimits = rateLimits
        self.presence = presence
        self.appContextEvents = appContextEvents
    }

    /// Decodes a key pair; `presence`, `secretKey`, `accessManager`, `rateLimits` and `appContextEvents` may be
    /// absent (Access Manager then follows the presence of a secret; App Context events are off).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        publishKey = try container.decode(String.self, forKey: .publishKey)
        subscribeKey = try container.decode(String.self, forKey: .subscribeKey)
        presence = try container.decodeIfPresent(PresenceSettings.Overrides.self, forKey: .presence) ?? .init()
        secretKey = try container.decodeIfPresent(String.self, forKey: .secretKey)
        accessManager = try container.decodeIfPresent(Bool.self, forKey: .accessManager) ?? (secretKey != nil)
        rateLimits = try container.decodeIfPresent(RateLimits.self, forKey: .rateLimits)
        appContextEvents = try container.decodeIfPresent(Bool.self, forKey: .appContextEvents) ?? false
    }

    /// The embedded default: an open `demo`/`demo` keyset.
    public static let demo = Keyset(publishKey: "demo", subscribeKey: "demo")

    /// The presence settings of this keyset under the node's `limits`.
    public func presenceSettings(_ limits: Limits) -> PresenceSettings {
        PresenceSettings(limits: limits, overrides: presence)
    }
}
