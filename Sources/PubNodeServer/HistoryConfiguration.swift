import Foundation
import PubNodeCore

/// Message history settings: node-wide defaults plus per-keyset overrides.
public struct HistoryConfiguration: Sendable, Equatable {
    /// Whether keysets keep history unless they say otherwise.
    public var enabled = true
    /// Hours a message without `ttl` is kept, unless a keyset says otherwise; 0 = forever.
    public var retentionHours = 168
    /// Longest wait before queued messages are committed (group commit), in milliseconds.
    public var flushMilliseconds = 10
    /// Acknowledge a stored publish only after its commit.
    public var strict = false
    /// Per-keyset overrides, by subscribe key.
    public var keysets: [String: Override] = [:]

    /// A keyset's own history settings.
    public struct Override: Sendable, Equatable {
        /// Overrides `enabled`.
        public var enabled: Bool?
        /// Overrides `retentionHours`.
        public var retentionHours: Int?
    }

    /// The defaults.
    public init() {}

    /// The policy of one subscribe key.
    public func policy(for subscribeKey: String) -> HistoryPolicy {
        let override = keysets[subscribeKey]
        return HistoryPolicy(enabled: override?.enabled ?? enabled,
                             retentionHours: override?.retentionHours ?? retentionHours)
    }

    /// The policies of `keysets`, by subscribe key.
    public func policies(for keysets: [Keyset]) -> [String: HistoryPolicy] {
        Dictionary(keysets.map { ($0.subscribeKey, policy(for: $0.subscribeKey)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Keeps the history settings of one keyset entry of the config file and returns the entry
    /// without them (`historyEnabled`, `historyRetentionHours`).
    mutating func take(from item: [String: Any]) throws(ConfigurationError) -> [String: Any] {
        guard let subscribeKey = item["subscribeKey"] as? String else { return item }
        var rest = item
        var override = keysets[subscribeKey] ?? Override()
        if let value = rest.removeValue(forKey: "historyEnabled") {
            override.enabled = try Self.boolean(Self.text(value), "keyset \(subscribeKey): historyEnabled")
        }
        if let value = rest.removeValue(forKey: "historyRetentionHours") {
            override.retentionHours = try NodeConfiguration.integer(Self.text(value),
                                                                    "keyset \(subscribeKey): historyRetentionHours",
                                                                    range: Self.retentionRange)
        }
        if override != Override() { keysets[subscribeKey] = override }
        return rest
    }

    private static func text(_ value: Any) -> String {
        if let string = value as? String { return string }
        if let number = value as? NSNumber { return number.stringValue }
        return "\(value)"
    }

    /// Accepted retention: up to 100 years.
    static let retentionRange = 0...876_000

    /// Parses `true`/`false`/`1`/`0`/`yes`/`no`.
    static func boolean(_ text: String, _ name: String) throws(ConfigurationError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError("\(name) must be true or false (got '\(text)')")
        }
    }
}

extension NodeConfiguration {
    /// The history rows of the settings table.
    static var historySettings: [Setting] {
        [
            Setting(key: "historyEnabled", environment: "PUBNODE_HISTORY_ENABLED") { config, value throws(ConfigurationError) in
                config.history.enabled = try HistoryConfiguration.boolean(value, "historyEnabled")
            },
            Setting(key: "historyRetentionHours", environment: "PUBNODE_HISTORY_RETENTION_HOURS") { config, value throws(ConfigurationError) in
                config.history.retentionHours = try integer(value, "historyRetentionHours", range: HistoryConfiguration.retentionRange)
            },
            Setting(key: "historyFlushMilliseconds", environment: "PUBNODE_HISTORY_FLUSH_MILLISECONDS") { config, value throws(ConfigurationError) in
                config.history.flushMilliseconds = try integer(value, "historyFlushMilliseconds", range: 0...1000)
            },
            Setting(key: "historyStrict", environment: "PUBNODE_HISTORY_STRICT") { config, value throws(ConfigurationError) in
                config.history.strict = try HistoryConfiguration.boolean(value, "historyStrict")
            },
        ]
    }

    /// The history database file inside the data directory.
    public var historyDatabasePath: String {
        (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + "history.sqlite"
    }
}
