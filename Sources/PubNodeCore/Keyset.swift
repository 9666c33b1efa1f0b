/// A publish/subscribe key pair: the unit of isolation. Channels, groups, buffers and presence of
/// one subscribe key are invisible to every other.
public struct Keyset: Sendable, Equatable, Hashable, Codable {
    /// The key publishers present.
    public var publishKey: String
    /// The key subscribers present; it names the keyset's channel space.
    public var subscribeKey: String
    /// This keyset's overrides of the node-wide presence limits.
    public var presence: PresenceSettings.Overrides

    /// Creates a key pair.
    public init(publishKey: String, subscribeKey: String, presence: PresenceSettings.Overrides = .init()) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.presence = presence
    }

    /// Decodes a key pair; `presence` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        publishKey = try container.decode(String.self, forKey: .publishKey)
        subscribeKey = try container.decode(String.self, forKey: .subscribeKey)
        presence = try container.decodeIfPresent(PresenceSettings.Overrides.self, forKey: .presence) ?? .init()
    }

    /// The embedded default: an open `demo`/`demo` keyset.
    public static let demo = Keyset(publishKey: "demo", subscribeKey: "demo")

    /// The presence settings of this keyset under the node's `limits`.
    public func presenceSettings(_ limits: Limits) -> PresenceSettings {
        PresenceSettings(limits: limits, overrides: presence)
    }
}
