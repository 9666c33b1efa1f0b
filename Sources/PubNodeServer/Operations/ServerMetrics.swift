import CoreMetrics
import Prometheus
import PubNodeCore
import Synchronization

/// The node's Prometheus metrics (`GET /metrics`).
///
/// Two kinds of series, so that nothing on the hot path touches the registry:
/// - measured as they happen: HTTP requests and their latency in counters each event loop writes
///   alone, summed and rendered at scrape time (`HTTPMetrics`), history commit durations through a
///   swift-metrics timer (off the request path);
/// - read at scrape time from counters and state the node keeps anyway (`KeysetCounters`, broker
///   and presence figures, hook outboxes, the history writer, the process): `render` copies them
///   into the registry's gauges and counters, then emits the text format.
public final class ServerMetrics: Sendable {
    /// The registry rendered at `/metrics`.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory writing into `registry`.
    public let factory: PrometheusMetricsFactory
    let http: HTTPMetrics
    private let historyCommits: CoreMetrics.Timer
    private let historyCommitsOK: CoreMetrics.Counter
    private let historyCommitsFailed: CoreMetrics.Counter
    /// Series copied at scrape time; scrapes are serialized by this lock.
    private let exported: Mutex<ExportedSeries>

    /// Latency buckets, from half a millisecond (a publish) to ten seconds.
    static let latencyBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    /// A registry of its own (tests and several nodes in one process never share one).
    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.latencyBuckets
        self.factory = factory
        exported = Mutex(ExportedSeries(registry: registry))
        http = HTTPMetrics(bounds: Self.latencyBuckets)
        historyCommits = CoreMetrics.Timer(label: "pubnode_history_commit_duration_seconds", factory: factory)
        historyCommitsOK = CoreMetrics.Counter(label: "pubnode_history_commits_total", dimensions: [("result", "ok")],
                                               factory: factory)
        historyCommitsFailed = CoreMetrics.Counter(label: "pubnode_history_commits_total",
                                                   dimensions: [("result", "failed")], factory: factory)
    }

    /// Observes one history commit (give it to `MessageHistory`'s `onCommit`).
    public func historyCommitted(_ report: HistoryWriter.CommitReport) {
        historyCommits.recordNanoseconds(Int64(clamping: report.nanoseconds))
        (report.succeeded ? historyCommitsOK : historyCommitsFailed).increment()
    }

    /// Brings the scrape-time series up to date from `node`, `operations` and `clientLimits`, then
    /// renders the whole registry in Prometheus' text format.
    func render(node: Node, operations: Operations, clientLimits: ClientLimits) -> [UInt8] {
        let statistics = node.metricsStatistics()
        let process = ProcessStatistics.read()
        let nowSeconds = Double(node.clock.nowNanoseconds()) / 1e9
        exported.withLock { series in
            series.beginScrape()
            series.exportKeysets(statistics)
            series.exportHooks(node.hooks.stats())
            series.exportServer(operations: operations, clientLimits: clientLimits.snapshot())
            series.exportHistory(node.history, nowSeconds: nowSeconds)
            series.exportProcess(process, startedAt: Double(operations.startedAtMilliseconds) / 1000)
            series.endScrape()
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        http.render(into: &bytes)
        return bytes
    }
}
