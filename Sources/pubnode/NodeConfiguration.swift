import Foundation
import PubNodeCore
import PubNodeRedis
import PubNodeServer

/// Everything the node is configured with, merged from defaults, a config file, the environment
/// and flags (later sources win: flags over environment over file over defaults).
///
/// The values here are the defaults; every setting's names, range and help are declared once, in
/// `NodeConfiguration.settings` (`NodeConfiguration+Settings.swift`).
struct NodeConfiguration: Sendable, Equatable {
    /// Address to bind.
    var host = "127.0.0.1"
    /// Port to bind.
    var port = 8090
    /// Directory for the node's files (history database, outbox).
    var dataDirectory = "./pubnode-data"
    /// swift-log level name (trace, debug, info, notice, warning, error, critical).
    var logLevel = "info"
    /// Log line format: `text` (swift-log's lines) or `json` (one object per line).
    var logFormat = "text"
    /// Region number reported in timetoken objects.
    var region = 1
    /// Event-loop threads; 0 means one per core.
    var eventLoopThreads = 0
    /// How the kernel schedules the event-loop threads: `automatic`, `batch` or `normal`.
    var eventLoopScheduling = LoopScheduling.automatic.rawValue
    /// The key pairs served; the embedded default is the open `demo`/`demo` keyset.
    var keysets: [Keyset] = [.demo]
    /// Whether configured keysets announce App Context changes (`e: 2` events) unless their entry says otherwise.
    var appContextEvents = false
    /// Keyset entries' own `appContextEvents`, by subscribe key.
    var appContextEventOverrides: [String: Bool] = [:]
    /// Limits shared by every keyset.
    var limits = Limits()
    /// Seconds between channel sweeps (expired buffered messages, idle channels).
    var sweepIntervalSeconds = 10
    /// Message history settings.
    var history = HistoryConfiguration()
    /// Webhooks (config file `hooks`).
    var hooks: [HookSpec] = []
    /// Hosts webhooks may call; empty allows any (config `hookAllowList`, comma-separated in the environment).
    var hookAllowList: [String] = []
    /// Bearer token of the `/v1/admin` endpoints; they are refused without one.
    var adminToken: String?
    /// The Redis of the cluster this node is a member of; nil for a single node.
    var redis: RedisAddress?
    /// Most open connections per client IP address; 0 = unlimited.
    var clientConnectionLimit = 2_000
    /// Most open connections to the node; 0 derives it from the descriptor limit.
    var connectionLimit = 0
    /// Most parked long-polls per client address; 0 = unlimited.
    var clientParkedLimit = 1_000
    /// Whether the per-client limits apply to loopback and private addresses too.
    var limitPrivateAddresses = false
    /// Requests per second per client IP address; nil = unlimited.
    var clientRequestRate: Double?
    /// The rate limits every keyset gets unless its own entry says otherwise; unlimited by default.
    var keysetRateLimits = RateLimits()
    /// Whether `/metrics` is served.
    var metricsEnabled = true
    /// The metrics port; 0 for none.
    var metricsPort = 0
    /// Address the metrics port binds.
    var metricsHost = "127.0.0.1"

    /// The defaults.
    init() {}

    /// Checks the merged result.
    func validate() throws(ConfigurationError) {
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

    /// The history database file inside the data directory.
    var historyDatabasePath: String {
        (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + "history.sqlite"
    }

    /// What the HTTP front needs of it.
    var server: ServerConfiguration {
        var server = ServerConfiguration()
        server.host = host
        server.port = port
        server.region = region
        if eventLoopThreads > 0 { server.eventLoopThreads = eventLoopThreads }
        server.loopScheduling = LoopScheduling(rawValue: eventLoopScheduling) ?? .automatic
        server.maxConnectionsPerClient = clientConnectionLimit
        server.maxConnections = connectionLimit > 0 ? connectionLimit : DescriptorLimit.connectionBudget()
        server.maxParkedPerClient = clientParkedLimit
        server.exemptPrivateClients = !limitPrivateAddresses
        server.clientRequestsPerSecond = clientRequestRate ?? 0
        if metricsPort > 0 { server.metricsPort = metricsPort }
        server.metricsHost = metricsHost
        return server
    }
}
