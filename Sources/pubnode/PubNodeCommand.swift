import ArgumentParser
import Dispatch
import Foundation
import Logging
import PubNodeCore
import PubNodeHistorySQLite
import PubNodeServer
import PubNodeWebhooks

/// `pubnode`: serves PubNub's publish/subscribe protocol over HTTP long-poll.
///
/// ArgumentParser handles the command, `--config` and `--help`; every other flag belongs to the
/// settings table (`NodeConfiguration.settings`), which also writes their help.
@main
struct PubNodeCommand: AsyncParsableCommand {
    /// The command's name, abstract and settings help.
    static let configuration = CommandConfiguration(
        commandName: "pubnode",
        abstract: "A self-hosted publish/subscribe node speaking PubNub's HTTP protocol.",
        discussion: NodeConfiguration.settingsHelp)

    /// The JSON configuration file.
    @Option(help: "JSON configuration file.") var config: String?

    /// Every other argument: the settings flags, applied by the table.
    @Argument(parsing: .allUnrecognized, help: "Settings as --flag value (listed above).")
    var settings: [String] = []

    /// The merged configuration: defaults, `--config`, `environment`, then the flags.
    func resolvedConfiguration(environment: [String: String]) throws(ConfigurationError) -> NodeConfiguration {
        try NodeConfiguration.resolve(file: config, environment: environment, flags: settings)
    }

    /// Runs the node until SIGTERM or SIGINT has drained it.
    func run() async throws {
        let configuration: NodeConfiguration
        do {
            configuration = try resolvedConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch {
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
                                   store: database.map { SQLiteHookOutboxStore(database: $0) }, clock: clock,
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
        let server = PubNodeHTTPServer(configuration: configuration.server, node: node, logger: logger)
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
