import ArgumentParser
import Dispatch
import Foundation
import Logging
import PubNodeCore
import PubNodeHistorySQLite
import PubNodeServer
import PubNodeWebhooks

/// `pubnode`: serves PubNub's publish/subscribe protocol over HTTP long-poll.
@main
struct PubNodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pubnode",
        abstract: "A self-hosted publish/subscribe node speaking PubNub's HTTP protocol.",
        discussion: """
        Settings come from, in increasing precedence: built-in defaults, the --config JSON file, \
        PUBNODE_* environment variables, then flags. With no settings it serves the open demo/demo \
        keyset on 127.0.0.1:8090.
        """)

    @Option(help: "Address to bind (default 127.0.0.1; env PUBNODE_HOST).") var host: String?
    @Option(help: "Port to bind (default 8090; env PUBNODE_PORT).") var port: Int?
    @Option(name: .customLong("data-dir"), help: "Directory for the node's files (default ./pubnode-data).") var dataDir: String?
    @Option(help: "JSON configuration file.") var config: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env PUBNODE_LOG_LEVEL).") var logLevel: String?
    @Option(help: "Region number reported in timetokens.") var region: Int?
    @Option(name: .customLong("event-loop-threads"), help: "Event-loop threads (default: one per core).") var eventLoopThreads: Int?
    @Option(name: .customLong("keyset"), help: "A publishKey:subscribeKey pair; repeat for several (replaces demo/demo).") var keysets: [String] = []
    @Option(name: .customLong("buffer-size"), help: "Messages kept per channel (default 100).") var bufferSize: Int?
    @Option(name: .customLong("messages-per-response"), help: "Most messages per subscribe response (default 100).") var messagesPerResponse: Int?
    @Option(name: .customLong("max-message-bytes"), help: "Message size limit (default 32768).") var maxMessageBytes: Int?
    @Option(name: .customLong("max-signal-bytes"), help: "Signal payload limit (default 30).") var maxSignalBytes: Int?
    @Option(name: .customLong("max-body-bytes"), help: "Request body limit (default 65536).") var maxBodyBytes: Int?
    @Option(name: .customLong("max-channels-per-subscribe"), help: "Channels per subscribe (default 500).") var maxChannelsPerSubscribe: Int?
    @Option(name: .customLong("max-groups-per-subscribe"), help: "Groups per subscribe (default 10).") var maxGroupsPerSubscribe: Int?
    @Option(name: .customLong("max-channels-per-group"), help: "Channels per group (default 2000).") var maxChannelsPerGroup: Int?
    @Option(name: .customLong("long-poll-timeout"), help: "Seconds a subscribe stays parked (default 280).") var longPollTimeout: Int?
    @Option(name: .customLong("idle-channel-seconds"), help: "Seconds before an empty idle channel is reclaimed (default 60).") var idleChannelSeconds: Int?
    @Option(name: .customLong("buffer-retention"), help: "Seconds a buffered message is kept; 0 = until pushed out (default 3600).") var bufferRetention: Int?
    @Option(name: .customLong("idle-connection-seconds"), help: "Seconds a silent connection is kept open (default 310, must exceed the long-poll timeout).") var idleConnectionSeconds: Int?
    @Option(name: .customLong("presence-timeout"), help: "Seconds a uuid stays present without a heartbeat (default 300).") var presenceTimeout: Int?
    @Option(name: .customLong("presence-min-timeout"), help: "Shortest presence timeout a client may ask for (default 20).") var presenceMinTimeout: Int?
    @Option(name: .customLong("announce-max"), help: "Occupancy above which interval events replace per-uuid ones (default 20).") var announceMax: Int?
    @Option(name: .customLong("presence-interval"), help: "Seconds between interval presence events (default 10).") var presenceInterval: Int?
    @Option(name: .customLong("max-state-bytes"), help: "Presence state size limit per uuid and channel (default 32768).") var maxStateBytes: Int?
    @Option(name: .customLong("history-enabled"), help: "Keep message history: true or false (default true).") var historyEnabled: String?
    @Option(name: .customLong("history-retention-hours"), help: "Hours history keeps a message without ttl; 0 = forever (default 168).") var historyRetentionHours: Int?
    @Option(name: .customLong("history-flush-ms"), help: "Longest wait before stored messages are committed (default 10).") var historyFlushMilliseconds: Int?
    @Option(name: .customLong("history-strict"), help: "Acknowledge stored publishes only after commit: true or false (default false).") var historyStrict: String?

    func resolvedConfiguration(environment: [String: String]) throws -> NodeConfiguration {
        var configuration = NodeConfiguration()
        if let config { try configuration.apply(fileAt: config) }
        try configuration.apply(environment: environment)
        let flags: [(String, String?)] = [
            ("host", host), ("port", port.map(String.init)), ("dataDir", dataDir), ("logLevel", logLevel),
            ("region", region.map(String.init)), ("eventLoopThreads", eventLoopThreads.map(String.init)),
            ("keysets", keysets.isEmpty ? nil : keysets.joined(separator: ",")),
            ("bufferSize", bufferSize.map(String.init)), ("messagesPerResponse", messagesPerResponse.map(String.init)),
            ("maxMessageBytes", maxMessageBytes.map(String.init)), ("maxSignalBytes", maxSignalBytes.map(String.init)),
            ("maxBodyBytes", maxBodyBytes.map(String.init)),
            ("maxChannelsPerSubscribe", maxChannelsPerSubscribe.map(String.init)),
            ("maxGroupsPerSubscribe", maxGroupsPerSubscribe.map(String.init)),
            ("maxChannelsPerGroup", maxChannelsPerGroup.map(String.init)),
            ("longPollTimeoutSeconds", longPollTimeout.map(String.init)),
            ("idleChannelSeconds", idleChannelSeconds.map(String.init)),
            ("bufferRetentionSeconds", bufferRetention.map(String.init)),
            ("idleConnectionSeconds", idleConnectionSeconds.map(String.init)),
            ("presenceTimeoutSeconds", presenceTimeout.map(String.init)),
            ("presenceMinTimeoutSeconds", presenceMinTimeout.map(String.init)),
            ("announceMax", announceMax.map(String.init)),
            ("presenceIntervalSeconds", presenceInterval.map(String.init)),
            ("maxStateBytes", maxStateBytes.map(String.init)),
            ("historyEnabled", historyEnabled), ("historyRetentionHours", historyRetentionHours.map(String.init)),
            ("historyFlushMilliseconds", historyFlushMilliseconds.map(String.init)), ("historyStrict", historyStrict),
        ]
        for case let (key, value?) in flags { try configuration.set(key, value) }
        try configuration.validate()
        return configuration
    }

    func run() async throws {
        let configuration: NodeConfiguration
        do {
            configuration = try resolvedConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "pubnode")
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        let clock = TimetokenClock()
        let database = try openDatabase(configuration, logger: logger)
        let history = database.map { database in
            SQLiteHistory.history(
                database: database, policies: configuration.history.policies(for: configuration.keysets), clock: clock,
                flushMilliseconds: configuration.history.flushMilliseconds, strict: configuration.history.strict,
                onWriteFailure: { logger.error("history write failed", metadata: ["error": "\($0)", "messages": "\($1)"]) })
        }
        let webhooks: WebhookHooks
        let hooks: HookEngine
        do {
            webhooks = try WebhookHooks.make(configuration.hooks, allowList: HostAllowList(configuration.hookAllowList))
            hooks = try HookEngine(bindings: webhooks.bindings,
                                   store: database.map { SQLiteHookOutboxStore(database: $0) }, clock: clock, nodeClock: SystemNodeClock(),
                                   logger: Logger(label: "pubnode.hooks"))
        } catch {
            throw ValidationError(error.description)
        }
        for binding in hooks.bindings {
            logger.info("hook", metadata: ["name": "\(binding.name)", "event": "\(binding.trigger.rawValue)",
                                           "subscribeKey": "\(binding.subscribeKey)", "channels": "\(binding.channels)",
                                           "target": "\(binding.target)", "policy": "\(binding.policy.rawValue)",
                                           "outbox": "\(database == nil ? "memory" : "sqlite")"])
        }
        let node = Node(keysets: configuration.keysets, limits: configuration.limits, clock: clock,
                                     region: configuration.region, hooks: hooks, history: history)
        if let history {
            let restored = try history.restore(into: node)
            logger.info("history restored", metadata: ["messages": "\(restored.messages)", "channels": "\(restored.channels)"])
            history.startSweeping(everySeconds: 60) { logger.error("history sweep failed", metadata: ["error": "\($0)"]) }
        }
        try hooks.start()
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = configuration.port
        serverConfiguration.region = configuration.region
        if configuration.eventLoopThreads > 0 { serverConfiguration.eventLoopThreads = configuration.eventLoopThreads }
        serverConfiguration.adminToken = configuration.adminToken
        let server = PubNodeHTTPServer(configuration: serverConfiguration, node: node, logger: logger)
        try await server.start()
        logger.info("keysets", metadata: ["subscribeKeys": "\(configuration.keysets.map(\.subscribeKey))"])
        let signal = await TerminationSignal.wait()
        logger.info("draining", metadata: ["signal": "\(signal)"])
        try await server.shutdown()
        await hooks.shutdown()
        await webhooks.shutdown()
        history?.close()
    }
}

/// Opens the history database (which also keeps the hook outbox), or nil when no keyset keeps
/// history; an unusable file stops the node.
func openDatabase(_ configuration: NodeConfiguration, logger: Logger) throws -> HistoryDatabase? {
    let policies = configuration.history.policies(for: configuration.keysets)
    guard policies.values.contains(where: \.enabled) else { return nil }
    do {
        return try HistoryDatabase.file(path: configuration.historyDatabasePath)
    } catch {
        logger.critical("history database unusable; start with --history-enabled false to run without history",
                        metadata: ["path": "\(configuration.historyDatabasePath)", "error": "\(error)"])
        throw ExitCode(3)
    }
}

/// Waits for SIGTERM or SIGINT.
enum TerminationSignal {
    /// Suspends until one of the signals arrives; returns its number.
    static func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let queue = DispatchQueue(label: "pubnode.signals")
            let resumed = ResumeOnce(continuation)
            var sources: [DispatchSourceSignal] = []
            for number in [SIGTERM, SIGINT] {
                Foundation.signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { resumed.resume(number) }
                source.resume()
                sources.append(source)
            }
            Retained.sources = sources
        }
    }

    /// Keeps the signal sources alive for the process lifetime.
    enum Retained {
        nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []
    }
}

/// Resumes a continuation at most once; touched only on the signal queue.
final class ResumeOnce: @unchecked Sendable {
    private var continuation: CheckedContinuation<Int32, Never>?
    init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }
    func resume(_ value: Int32) {
        guard let continuation else {
            // A second signal while draining: the operator wants out now.
            FileHandle.standardError.write(Data("second signal: exiting without waiting for the drain\n".utf8))
            exit(128 + value)
        }
        continuation.resume(returning: value)
        self.continuation = nil
    }
}
