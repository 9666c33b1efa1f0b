import ArgumentParser
import Foundation
import Logging
import PubNodeCore
import PubNodeHistoryPostgres
import PubNodeHistorySQLite
import PubNodeRedis
import PubNodeServer
import PubNodeWebhooks
import ServiceLifecycle
import UnixSignals

/// A node assembled from its configuration: the domain `Node`, its HTTP server and the services
/// that run and drain them.
///
/// `make` does what must be finished before the node listens (open the data directory and history
/// database, restore buffers from history, load the hook outbox); `run` runs the services until a
/// signal (or `ServiceGroup.triggerGracefulShutdown()`) drains them.
struct NodeRuntime {
    /// The domain node.
    let node: Node
    /// The HTTP front.
    let server: PubNodeHTTPServer
    /// The services, by role.
    let services: NodeServices

    /// How often the history expiry sweep runs.
    static let historySweepInterval = Duration.seconds(60)

    /// Builds the node of `configuration`; `clock` gives the node its time and the sweeps their
    /// ticks, `onListening` is told the bound port.
    static func make(_ configuration: NodeConfiguration, clock: any NodeClock = SystemNodeClock(), logger: Logger,
                     onListening: @escaping @Sendable (Int) -> Void = { _ in }) throws -> NodeRuntime {
        // The data directory holds secrets (access.sqlite and its journal): nothing the node
        // creates is readable by other users.
        umask(0o077)
        // Connections are descriptors: take what the hard limit allows before sizing the limits.
        DescriptorLimit.raise()
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        // A cluster member's clock follows Redis's time line, so handshakes and timetokens agree.
        let clusterWall = configuration.redis.map { _ in ClusterWallClock(base: clock) }
        let timetokens = TimetokenClock(wall: clusterWall ?? clock)
        let database = try openDatabase(configuration, logger: logger)
        let metrics = configuration.metricsEnabled ? ServerMetrics() : nil
        let onCommit: (@Sendable (HistoryWriter.CommitReport) -> Void)? = metrics.map { metrics in
            { @Sendable report in metrics.historyCommitted(report) }
        }
        let postgres = try openPostgres(configuration, logger: logger)
        let history = postgresHistory(postgres, configuration, clock: timetokens, logger: logger, onCommit: onCommit)
            ?? database.map { database in
            SQLiteHistory.history(
                database: database, policies: configuration.history.policies(for: configuration.keysets),
                created: configuration.history.policy(for: ""), clock: timetokens,
                flushMilliseconds: configuration.history.flushMilliseconds, strict: configuration.history.strict,
                onWriteFailure: { logger.error("history write failed", metadata: ["error": "\($0)", "messages": "\($1)"]) },
                onCommit: onCommit)
        }
        let webhooks: WebhookHooks
        let hooks: HookEngine
        do {
            webhooks = try WebhookHooks.make(configuration.hooks, allowList: HostAllowList(configuration.hookAllowList))
            hooks = try HookEngine(bindings: webhooks.bindings,
                                   store: database.map { SQLiteHookOutboxStore(database: $0) }, clock: timetokens,
                                   nodeClock: clock, logger: Logger(label: "pubnode.hooks"))
        } catch {
            throw ValidationError(error.description)
        }
        for binding in hooks.bindings {
            logger.info("hook", metadata: ["name": "\(binding.name)", "event": "\(binding.trigger.rawValue)",
                                           "subscribeKey": "\(binding.subscribeKey)", "channels": "\(binding.channels)",
                                           "target": "\(binding.target)", "policy": "\(binding.policy.rawValue)",
                                           "outbox": "\(database == nil ? "memory" : "sqlite")"])
        }
        let accessStore: any AccessStore = try postgres.map { PostgresAccessStore(database: $0) }
            ?? openAccessStore(configuration, logger: logger)
        let objectStore: any ObjectStore = try postgres.map { PostgresObjectStore(database: $0) }
            ?? openObjectStore(configuration, logger: logger)
        let cluster = configuration.redis.map { address in
            ClusterParts.make(address, configuration: configuration, clock: timetokens, wall: clusterWall, hooks: hooks,
                              logger: logger)
        }
        let hubs = MemoryHubs(limits: configuration.limits, clock: timetokens, region: configuration.region,
                              observer: hooks.presenceObserver(subscribeKey:))
        let node = Node(keysets: configuration.keysets, limits: configuration.limits,
                        broker: cluster?.broker ?? MemoryBroker(hubs: hubs), presence: cluster?.presence ?? MemoryPresence(hubs: hubs),
                        clock: timetokens, region: configuration.region, adminToken: configuration.adminToken, hooks: hooks,
                        history: history, accessStore: accessStore, keysetRateLimits: configuration.keysetRateLimits,
                        messageActions: postgres.map { PostgresMessageActionStore(database: $0) as any MessageActionStore }
                            ?? database.map { SQLiteMessageActionStore(database: $0) as any MessageActionStore }
                            ?? MemoryMessageActionStore(),
                        objects: objectStore)
        do { try node.restoreAccess() } catch {
            logger.critical("access store unreadable", metadata: ["error": "\(error)"])
            throw ExitCode(3)
        }
        if let history {
            let restored = try history.restore(into: node)
            logger.info("history restored", metadata: ["messages": "\(restored.messages)", "channels": "\(restored.channels)"])
        }
        // The outbox is loaded before the server listens, so no accepted event can precede it.
        try hooks.start()
        let operations = operations(metrics: metrics, node: node, history: history, logger: logger, postgres: postgres)
        cluster?.addReadiness(to: operations)
        let server = PubNodeHTTPServer(configuration: configuration.server, node: node, logger: logger, operations: operations)
        let subscribeKeys = configuration.keysets.map(\.subscribeKey)
        let services = NodeServices(
            history: history == nil && postgres == nil ? nil
                : ClosingService("history") { history?.close(); await postgres?.shutdown() },
            cluster: cluster?.service,
            webhooks: ClosingService("webhooks") { await webhooks.shutdown() },
            hooks: ClosingService("hooks") { await hooks.shutdown() },
            server: HTTPServerService(server) { port in
                logger.info("keysets", metadata: ["subscribeKeys": "\(subscribeKeys)"])
                onListening(port)
            },
            sweeps: sweeps(configuration, node: node, history: history, clock: clock, logger: logger)
                + (postgres == nil ? [] : [accessReconcile(node: node, clock: clock, logger: logger)]))
        return NodeRuntime(node: node, server: server, services: services)
    }

    /// Readiness (history commits succeeding), metrics and the console's files.
    static func operations(metrics: ServerMetrics?, node: Node, history: MessageHistory?, logger: Logger,
                           postgres: PostgresDatabase? = nil) -> Operations {
        let console = ConsoleAssets.installed()
        if console == nil { logger.warning("console files not found; /console is unavailable") }
        let operations = Operations(metrics: metrics, console: console,
                                    startedAtMilliseconds: Int64(node.clock.nowNanoseconds() / 1_000_000))
        if let history {
            operations.readiness.addCheck("history") { !history.writer.isFailing() }
        }
        if let postgres {
            operations.readiness.addCheck("history database") { postgres.isReachable }
        }
        return operations
    }

    /// The periodic work: presence every second, channels every `sweepIntervalSeconds`, expired
    /// history every minute.
    static func sweeps(_ configuration: NodeConfiguration, node: Node, history: MessageHistory?, clock: any NodeClock,
                       logger: Logger) -> [any Service] {
        let sweeps = NodeSweeps(node: node, logger: logger)
        var services: [any Service] = [
            PeriodicService("presence sweep", every: .seconds(1), clock: clock) { sweeps.sweepPresence() },
            PeriodicService("channel sweep", every: .seconds(configuration.sweepIntervalSeconds), clock: clock) {
                sweeps.sweepChannels()
            },
        ]
        if let history {
            services.append(PeriodicService("history sweep", every: historySweepInterval, clock: clock) {
                do {
                    let expired = try await history.sweepExpired()
                    if expired > 0 { logger.debug("history sweep", metadata: ["expired": "\(expired)"]) }
                    let actions = try await node.sweepMessageActions()
                    if actions > 0 { logger.debug("message action sweep", metadata: ["expired": "\(actions)"]) }
                } catch {
                    logger.error("history sweep failed", metadata: ["error": "\(error)"])
                }
            })
        }
        return services
    }

    /// Runs the services until `signals` (or a triggered graceful shutdown) drain them.
    func run(signals: [UnixSignal] = [.sigterm, .sigint], logger: Logger) async throws {
        try await services.group(signals: signals, logger: logger).run()
    }

    /// Opens the access store (created keysets, revoked tokens) in the data directory; an unusable
    /// file stops the node with exit code 3.
    static func openAccessStore(_ configuration: NodeConfiguration, logger: Logger) throws -> SQLiteAccessStore {
        let path = (configuration.dataDirectory.hasSuffix("/") ? configuration.dataDirectory : configuration.dataDirectory + "/")
            + SQLiteAccessStore.fileName
        do {
            return try SQLiteAccessStore.file(path: path)
        } catch {
            logger.critical("access store unusable", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ExitCode(3)
        }
    }

    /// Opens the App Context object store (`objects.sqlite`) in the data directory; an unusable
    /// file stops the node with exit code 3.
    static func openObjectStore(_ configuration: NodeConfiguration, logger: Logger) throws -> SQLiteObjectStore {
        let path = (configuration.dataDirectory.hasSuffix("/") ? configuration.dataDirectory : configuration.dataDirectory + "/")
            + SQLiteObjectStore.fileName
        do {
            return try SQLiteObjectStore.file(path: path)
        } catch {
            logger.critical("object store unusable", metadata: ["path": "\(path)", "error": "\(error)"])
            throw ExitCode(3)
        }
    }

    /// Opens the history database (which also keeps the hook outbox), or nil when no keyset keeps
    /// history (configured, or created at run time under the default). A database file that is
    /// missing, damaged or not the one `history.id` names stops the node with exit code 3, unless
    /// `historyAcceptEmpty` is set: then the files are moved aside and history starts empty. A
    /// damaged write-ahead log beside a sound database is moved aside and logged as an error.
    static func openDatabase(_ configuration: NodeConfiguration, logger: Logger,
                             now: Date = Date()) throws -> HistoryDatabase? {
        let policies = configuration.history.policies(for: configuration.keysets)
        guard configuration.history.enabled || policies.values.contains(where: \.enabled) else { return nil }
        let files = HistoryFiles(directory: configuration.dataDirectory)
        do {
            return try files.open(logger: logger, now: now)
        } catch let fault {
            guard configuration.history.acceptEmpty else {
                logger.critical("history files damaged; refusing to start",
                                metadata: ["file": "\(fault.file)", "fault": "\(fault.kind.rawValue)",
                                           "detail": "\(fault.detail)", "recovery": "\(HistoryFault.recovery)"])
                throw ExitCode(3)
            }
            do {
                let moved = try files.moveAside(stamp: HistoryFiles.stamp(now))
                logger.error("history files damaged; moved aside, starting with empty history (historyAcceptEmpty)",
                             metadata: ["file": "\(fault.file)", "fault": "\(fault.kind.rawValue)",
                                        "detail": "\(fault.detail)", "movedTo": "\(moved)"])
                return try files.open(logger: logger, now: now)
            } catch {
                logger.critical("history database unusable; start with --history-enabled false to run without history",
                                metadata: ["path": "\(files.database)", "error": "\(error)"])
                throw ExitCode(3)
            }
        }
    }
}
