import NIOCore
import Synchronization

/// What the HTTP front serves for operators beside PubNub's protocol: readiness, metrics, the web
/// console, and the connection gauges they report.
public final class Operations: Sendable {
    /// Whether the node should receive traffic (`/ready`).
    public let readiness: Readiness
    /// The Prometheus metrics (`/metrics`); nil turns metrics off.
    public let metrics: ServerMetrics?
    /// The web console's files (`/console`); nil when they are not installed.
    public let console: ConsoleAssets?
    /// When the node started, in Unix milliseconds.
    public let startedAtMilliseconds: Int64
    /// Open connections and parked polls.
    let gauges = ServerGauges()

    /// Operations with the given parts; `startedAtMilliseconds` is normally the node clock's now.
    public init(readiness: Readiness = Readiness(), metrics: ServerMetrics? = ServerMetrics(),
                console: ConsoleAssets? = ConsoleAssets.installed(), startedAtMilliseconds: Int64) {
        self.readiness = readiness
        self.metrics = metrics
        self.console = console
        self.startedAtMilliseconds = startedAtMilliseconds
    }
}

/// Connection gauges kept by the connection handlers: one relaxed atomic add when a connection
/// opens or closes, and a change to its loop's own count (`parkedPolls(on:)`) when a long-poll
/// parks or is released.
final class ServerGauges: Sendable {
    private let connections = Atomic<Int>(0)
    /// Parked polls, counted by each loop apart (two changes a delivery).
    private let parked = PerLoop { _ in LoopCount() }
    private let acceptFailures = Atomic<Int>(0)
    private let refusedTotal = Atomic<Int>(0)

    /// Open HTTP connections.
    var openConnections: Int { connections.load(ordering: .relaxed) }
    /// Parked long-polls.
    var parkedPolls: Int { parked.all.reduce(0) { $0 + $1.value } }

    /// The parked-poll count of `loop`'s connections, which they change (on that loop) when a
    /// long-poll parks or is released.
    func parkedPolls(on loop: any EventLoop) -> LoopCount { parked.value(for: loop) }

    /// Accepts that failed (no descriptor or memory left) since start.
    var failedAccepts: Int { acceptFailures.load(ordering: .relaxed) }
    /// Connections refused for being over the node's connection limit.
    var refusedConnections: Int { refusedTotal.load(ordering: .relaxed) }

    func acceptFailed() { acceptFailures.add(1, ordering: .relaxed) }
    func connectionRefused() { refusedTotal.add(1, ordering: .relaxed) }
    func connectionOpened() { connections.add(1, ordering: .relaxed) }
    func connectionClosed() { connections.subtract(1, ordering: .relaxed) }
}
