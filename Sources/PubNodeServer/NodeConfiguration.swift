import Foundation
import PubNodeCore

/// Everything the node is configured with, merged from defaults, a config file, the environment
/// and flags (later sources win: flags over environment over file over defaults).
public struct NodeConfiguration: Sendable, Equatable {
    /// Address to bind.
    public var host = "127.0.0.1"
    /// Port to bind.
    public var port = 8090
    /// Directory for the node's files (history database, outbox).
    public var dataDirectory = "./pubnode-data"
    /// swift-log level name (trace, debug, info, notice, warning, error, critical).
    public var logLevel = "info"
    /// Region number reported in timetoken objects.
    public var region = 1
    /// Event-loop threads; 0 means one per core.
    public var eventLoopThreads = 0
    /// The key pairs served; the embedded default is the open `demo`/`demo` keyset.
    public var keysets: [Keyset] = [.demo]
    /// Limits shared by every keyset.
    public var limits = Limits()
    /// Message history settings.
    public var history = HistoryConfiguration()
    /// Webhooks (config file `hooks`).
    public var hooks: [HookSpec] = []
    /// Hosts webhooks may call; empty allows any (config `hookAllowList`, comma-separated in the environment).
    public var hookAllowList: [String] = []
    /// Bearer token of the `/v1/admin` endpoints; they are refused without one.
    public var adminToken: String?

    /// The defaults.
    public init() {}

    /// One setting: its name in the config file, its environment variable and its flag.
    public struct Setting: Sendable {
        /// Name in the JSON config file (and in `Limits`).
        public var key: String
        /// Environment variable.
        public var environment: String
        /// Applies a textual value.
        var apply: @Sendable (inout NodeConfiguration, String) throws(ConfigurationError) -> Void
    }

    /// Every setting, in one table shared by the file, environment and flag sources.
    public static let settings: [Setting] = {
        var table: [Setting] = [
            Setting(key: "host", environment: "PUBNODE_HOST") { config, value throws(ConfigurationError) in config.host = value },
            Setting(key: "port", environment: "PUBNODE_PORT") { config, value throws(ConfigurationError) in
                config.port = try integer(value, "port", range: 0...65535)
            },
            Setting(key: "dataDir", environment: "PUBNODE_DATA_DIR") { config, value throws(ConfigurationError) in config.dataDirectory = value },
            Setting(key: "logLevel", environment: "PUBNODE_LOG_LEVEL") { config, value throws(ConfigurationError) in
                let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
                guard levels.contains(value.lowercased()) else {
                    throw ConfigurationError("logLevel must be one of \(levels.joined(separator: ", "))")
                }
                config.logLevel = value.lowercased()
            },
            Setting(key: "region", environment: "PUBNODE_REGION") { config, value throws(ConfigurationError) in
                config.region = try integer(value, "region", range: 0...Int(Int32.max))
            },
            Setting(key: "eventLoopThreads", environment: "PUBNODE_EVENT_LOOP_THREADS") { config, value throws(ConfigurationError) in
                config.eventLoopThreads = try integer(value, "eventLoopThreads", range: 0...256)
            },
            Setting(key: "keysets", environment: "PUBNODE_KEYSETS") { config, value throws(ConfigurationError) in
                config.keysets = try parseKeysets(value)
            },
            Setting(key: "hookAllowList", environment: "PUBNODE_HOOK_ALLOW_LIST") { config, value throws(ConfigurationError) in
                config.hookAllowList = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            },
            Setting(key: "adminToken", environment: "PUBNODE_ADMIN_TOKEN") { config, value throws(ConfigurationError) in
                guard value.utf8.count >= 16 else { throw ConfigurationError("adminToken must be at least 16 characters") }
                config.adminToken = value
            },
        ]
        let limits: [(String, WritableKeyPath<Limits, Int>)] = [
            ("bufferSize", \.bufferSize), ("messagesPerResponse", \.messagesPerResponse),
            ("maxMessageBytes", \.maxMessageBytes), ("maxSignalBytes", \.maxSignalBytes),
            ("maxBodyBytes", \.maxBodyBytes), ("maxChannelsPerSubscribe", \.maxChannelsPerSubscribe),
            ("maxGroupsPerSubscribe", \.maxGroupsPerSubscribe), ("maxChannelsPerGroup", \.maxChannelsPerGroup),
            ("longPollTimeoutSeconds", \.longPollTimeoutSeconds), ("idleChannelSeconds", \.idleChannelSeconds),
            ("bufferRetentionSeconds", \.bufferRetentionSeconds), ("idleConnectionSeconds", \.idleConnectionSeconds),
            ("presenceTimeoutSeconds", \.presenceTimeoutSeconds),
            ("presenceMinTimeoutSeconds", \.presenceMinTimeoutSeconds),
            ("announceMax", \.announceMax), ("presenceIntervalSeconds", \.presenceIntervalSeconds),
            ("maxStateBytes", \.maxStateBytes),
        ]
        table += historySettings
        for (key, path) in limits {
            nonisolated(unsafe) let path = path
            table.append(Setting(key: key, environment: "PUBNODE_" + snake(key)) { config, value throws(ConfigurationError) in
                config.limits[keyPath: path] = try integer(value, key, range: 0...Int(Int32.max))
            })
        }
        return table
    }()

    /// Applies `key = value` by its config-file name.
    public mutating func set(_ key: String, _ value: String) throws(ConfigurationError) {
        guard let setting = Self.settings.first(where: { $0.key == key }) else {
            throw ConfigurationError("unknown setting '\(key)'")
        }
        try setting.apply(&self, value)
    }

    /// Applies every `PUBNODE_*` variable present in `environment`.
    public mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        for setting in Self.settings {
            if let value = environment[setting.environment] { try setting.apply(&self, value) }
        }
    }

    /// Checks the merged result.
    public func validate() throws(ConfigurationError) {
        try limits.validate()
        guard !keysets.isEmpty else { throw ConfigurationError("at least one keyset is required") }
        let subscribeKeys = Set(keysets.map(\.subscribeKey))
        for hook in hooks where !subscribeKeys.contains(hook.subscribeKey) {
            throw ConfigurationError("hook \(hook.name): subscribeKey \(hook.subscribeKey) is not a configured keyset")
        }
        for keyset in keysets {
            do { try keyset.presenceSettings(limits).validate() } catch {
                throw ConfigurationError("keyset \(keyset.subscribeKey): \(error.description)")
            }
        }
    }

    static func integer(_ text: String, _ name: String, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw ConfigurationError("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound) (got '\(text)')")
        }
        return value
    }

    /// Parses `pub:sub,pub2:sub2`.
    static func parseKeysets(_ text: String) throws(ConfigurationError) -> [Keyset] {
        var result: [Keyset] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ConfigurationError("keyset '\(item)' must be publishKey:subscribeKey")
            }
            result.append(Keyset(publishKey: String(parts[0]), subscribeKey: String(parts[1])))
        }
        guard !result.isEmpty else { throw ConfigurationError("keysets must name at least one publishKey:subscribeKey") }
        return result
    }

    static func snake(_ key: String) -> String {
        var out = ""
        for character in key {
            if character.isUppercase { out.append("_") }
            out.append(character.uppercased())
        }
        return out
    }
}
