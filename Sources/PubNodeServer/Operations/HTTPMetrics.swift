import Atomics
import CoreMetrics
import Synchronization

/// Requests by endpoint family and status, and answer latency by family, through swift-metrics.
///
/// A counter handle is made the first time its series is needed (so `/metrics` lists only series
/// that happened) and kept in a lock-free slot; latency goes to a `LatencyHistogram` per family.
/// A request costs an array index, an atomic load and two or three relaxed atomic adds, never a
/// lock or a registry lookup. Statuses outside the usual set share a slower path under a lock.
final class HTTPMetrics: Sendable {
    /// Statuses the node answers with, given slots of their own.
    static let statuses: [UInt] = [200, 204, 304, 400, 401, 403, 404, 405, 408, 409, 412, 413, 414, 429, 431,
                                   481, 500, 502, 503, 504]
    /// The counter's and the histogram's names.
    static let requestsLabel = "pubnode_http_requests_total"
    static let durationLabel = "pubnode_http_request_duration_seconds"

    /// A made handle, boxed for a lazy atomic reference.
    private final class Handle<Metric: Sendable>: Sendable {
        let metric: Metric
        init(_ metric: Metric) { self.metric = metric }
    }

    private let factory: any MetricsFactory
    private let counters: [ManagedAtomicLazyReference<Handle<CoreMetrics.Counter>>]
    private let latency: [LatencyHistogram]
    private let rare = Mutex<[Int: CoreMetrics.Counter]>([:])

    /// Empty slots for every family and usual status, filled from `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        counters = (0..<(RequestFamily.allCases.count * Self.statuses.count)).map { _ in ManagedAtomicLazyReference() }
        latency = RequestFamily.allCases.map { _ in LatencyHistogram(bounds: ServerMetrics.latencyBuckets) }
    }

    /// Counts an answer with `status` to a request of `family`, and observes its latency when
    /// given (parked long-polls are counted, not timed: their latency is the wait for a message).
    func record(_ family: RequestFamily, status: UInt, nanoseconds: UInt64?) {
        if let column = status == 200 ? 0 : Self.statuses.firstIndex(of: status) {
            let slot = counters[family.rawValue * Self.statuses.count + column]
            let handle = slot.load() ?? slot.storeIfNilThenLoad(Handle(makeCounter(family, status)))
            handle.metric.increment()
        } else {
            rareCounter(family, status: status).increment()
        }
        if let nanoseconds { latency[family.rawValue].record(nanoseconds: nanoseconds) }
    }

    /// Appends the latency histograms in the text format (families that answered anything).
    func renderLatency(into out: inout [UInt8]) {
        out.append(contentsOf: "# TYPE \(Self.durationLabel) histogram\n".utf8)
        for family in RequestFamily.allCases {
            latency[family.rawValue].render(name: Self.durationLabel, labels: "family=\"\(family.label)\"", into: &out)
        }
    }

    private func makeCounter(_ family: RequestFamily, _ status: UInt) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: Self.requestsLabel, dimensions: [("family", family.label), ("status", String(status))],
                            factory: factory)
    }

    private func rareCounter(_ family: RequestFamily, status: UInt) -> CoreMetrics.Counter {
        let key = family.rawValue * 1000 + Int(min(status, 999))
        return rare.withLock { rare in
            if let counter = rare[key] { return counter }
            let counter = makeCounter(family, status)
            rare[key] = counter
            return counter
        }
    }
}
