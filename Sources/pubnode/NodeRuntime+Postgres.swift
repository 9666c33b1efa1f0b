import ArgumentParser
import Logging
import PubNodeCore
import PubNodeHistoryPostgres

extension NodeRuntime {
    /// Connects to and migrates the PostgreSQL database of `--history-url`, or nil when none is
    /// set. It holds history, message actions, App Context and access data (so it is opened even
    /// when no keyset keeps history). A database that cannot be reached or migrated stops the
    /// node with exit code 3.
    static func openPostgres(_ configuration: NodeConfiguration, logger: Logger) throws -> PostgresDatabase? {
        guard !configuration.history.url.isEmpty else { return nil }
        let location: PostgresLocation
        do { location = try PostgresLocation(url: configuration.history.url) } catch {
            throw ValidationError("historyUrl: \(error.description)")
        }
        do {
            let database = try PostgresHistory.open(location, logger: Logger(label: "pubnode.history.postgres"))
            logger.info("history in PostgreSQL", metadata: ["database": "\(location)"])
            return database
        } catch {
            logger.critical("history database unreachable; refusing to start",
                            metadata: ["database": "\(location)", "error": "\(error)"])
            throw ExitCode(3)
        }
    }

    /// The history of `configuration`'s keysets on `postgres`, if it is open and a keyset keeps history.
    static func postgresHistory(_ postgres: PostgresDatabase?, _ configuration: NodeConfiguration, clock: TimetokenClock,
                                logger: Logger,
                                onCommit: (@Sendable (HistoryWriter.CommitReport) -> Void)?) -> MessageHistory? {
        let policies = configuration.history.policies(for: configuration.keysets)
        guard configuration.history.enabled || policies.values.contains(where: \.enabled) else { return nil }
        return postgres.map { database in
            PostgresHistory.history(
                database: database, policies: configuration.history.policies(for: configuration.keysets),
                created: configuration.history.policy(for: ""), clock: clock,
                flushMilliseconds: configuration.history.flushMilliseconds, strict: configuration.history.strict,
                onWriteFailure: { error, lost in
                    guard lost > 0 else {
                        return logger.warning("history database unreachable; stored publishes wait for it",
                                              metadata: ["error": "\(error)"])
                    }
                    logger.error("history write failed", metadata: ["error": "\(error)", "messages": "\(lost)"])
                },
                onCommit: onCommit)
        }
    }

    /// How often a node on a shared access store (PostgreSQL) follows the other nodes' changes:
    /// the bound on how long a keyset change or revocation made elsewhere takes to apply here.
    static let accessReconcileInterval = Duration.seconds(2)

    /// The periodic reconcile of the access data with the shared store (`Node.reconcileAccess`).
    static func accessReconcile(node: Node, clock: any NodeClock, logger: Logger) -> PeriodicService {
        PeriodicService("access reconcile", every: accessReconcileInterval, clock: clock) {
            do {
                let report = try await node.reconcileAccess()
                if !report.isEmpty {
                    logger.info("access data followed", metadata: [
                        "added": "\(report.added)", "removed": "\(report.removed)", "updated": "\(report.updated)",
                        "deferred": "\(report.deferred)", "revoked": "\(report.revoked)"])
                }
            } catch {
                logger.warning("access reconcile failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
