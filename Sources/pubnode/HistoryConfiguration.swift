import Foundation
import PubNodeCore

/// Message history settings: node-wide defaults plus per-keyset overrides.
struct HistoryConfiguration: Sendable, Equatable {
    /// Whether keysets keep history unless they say otherwise.
    var enabled = true
    /// Hours a message without `ttl` is kept, unless a keyset says otherwise; 0 = forever.
    var retentionHours = 168
    /// Longest wait before queued messages are committed (group commit), in milliseconds.
    var flushMilliseconds = 10
    /// Acknowledge a stored publish only after its commit.
    var strict = false
    /// Start with empty history when the history files are damaged, after moving them aside.
    var acceptEmpty = false
    /// A PostgreSQL database (`postgres://user:password@host:port/db`) to keep history in instead
    /// of the data directory's SQLite file; empty: SQLite.
    var url = ""
    /// Per-keyset overrides, by subscribe key.
    var keysets: [String: Override] = [:]

    /// A keyset's own history settings.
    struct Override: Sendable, Equatable {
        /// Overrides `enabled`.
        var enabled: Bool?
        /// Overrides `retentionHours`.
        var retentionHours: Int?
    }

    /// The defaults.
    init() {}

    /// The policy of one subscribe key.
    func policy(for subscribeKey: String) -> HistoryPolicy {
        let override = keysets[subscribeKey]
        return HistoryPolicy(enabled: override?.enabled ?? enabled,
                             retentionHours: override?.retentionHours ?? retentionHours)
    }

    /// The policies of `keysets`, by subscribe key.
    func policies(for keysets: [Keyset]) -> [String: HistoryPolicy] {
        Dictionary(keysets.map { ($0.subscribeKey, policy(for: $0.subscribeKey)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Keeps the history settings of one keyset entry of the config file and returns the entry
    /// without them (`historyEnabled`, `historyRetentionHours`).
    mutating func take(from item: [String: Any]) throws(ConfigurationError) -> [String: Any] {
        guard let subscribeKey = item["subscribeKey"] as? String else { return item }
        var rest = item
        var override = keysets[subscribeKey] ?? Override()
        if let value = rest.removeValue(forKey: "historyEnabled") {
            override.enabled = try Setting.boolean(Setting.text(of: value), "keyset \(subscribeKey): historyEnabled")
        }
        if let value = rest.removeValue(forKey: "historyRetentionHours") {
            override.retentionHours = try Setting.integer(Setting.text(of: value),
                                                          "keyset \(subscribeKey): historyRetentionHours",
                                                          range: Self.retentionRange)
        }
        if override != Override() { keysets[subscribeKey] = override }
        return rest
    }

    /// Accepted retention: up to 100 years.
    static let retentionRange = 0...876_000
}
