/// A publish/subscribe key pair: the unit of isolation. Channels, groups and buffers of one
/// subscribe key are invisible to every other.
public struct Keyset: Sendable, Equatable, Hashable, Codable {
    /// The key publishers present.
    public var publishKey: String
    /// The key subscribers present; it names the keyset's channel space.
    public var subscribeKey: String

    /// Creates a key pair.
    public init(publishKey: String, subscribeKey: String) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
    }

    /// The embedded default: an open `demo`/`demo` keyset.
    public static let demo = Keyset(publishKey: "demo", subscribeKey: "demo")
}
