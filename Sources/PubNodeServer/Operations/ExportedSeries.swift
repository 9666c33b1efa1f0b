import Prometheus
import PubNodeCore

/// The series `ServerMetrics` copies into the registry at scrape time, and the values its
/// counters were last given (a Prometheus counter only grows: each scrape adds the difference).
/// A series that a scrape does not report again (a deleted keyset, a removed hook) is
/// unregistered. Guarded by `ServerMetrics`' lock.
struct ExportedSeries {
    private struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    private let registry: PrometheusCollectorRegistry
    private var gauges: [Key: Gauge] = [:]
    private var counters: [Key: (counter: Counter, value: Int)] = [:]
    private var secondCounters: [Key: (counter: Counter, value: Double)] = [:]
    private var seen: Set<Key> = []

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    mutating func beginScrape() { seen.removeAll(keepingCapacity: true) }

    /// Sets the gauge `name{labels}` to `value`.
    mutating func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = [], _ value: Double) {
        let key = Key(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        seen.insert(key)
        if gauges[key] == nil {
            gauges[key] = registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
        }
        gauges[key]!.set(value)
    }

    /// Brings the counter `name{labels}` up to `total` (a total that went down, because what it
    /// counts was recreated, is taken as the new base).
    mutating func counter(_ name: String, _ help: String, _ labels: [(String, String)] = [], total: Int) {
        let key = Key(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        seen.insert(key)
        guard let entry = counters[key] else {
            let counter = registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: labels)
            if total > 0 { counter.increment(by: Int64(total)) }
            counters[key] = (counter, total)
            return
        }
        if total > entry.value { entry.counter.increment(by: Int64(total - entry.value)) }
        counters[key] = (entry.counter, total)
    }

    /// Brings the unlabelled counter `name` up to `seconds`.
    mutating func counter(_ name: String, _ help: String, seconds: Double) {
        let key = Key(name: name, labels: [])
        seen.insert(key)
        let entry = secondCounters[key]
            ?? (registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help), labels: []), 0)
        if seconds > entry.value { entry.counter.increment(by: seconds - entry.value) }
        secondCounters[key] = (entry.counter, max(seconds, entry.value))
    }

    /// Unregisters every series this scrape did not report.
    mutating func endScrape() {
        for (key, gauge) in gauges where !seen.contains(key) {
            registry.unregisterGauge(gauge)
            gauges[key] = nil
        }
        for (key, entry) in counters where !seen.contains(key) {
            registry.unregisterCounter(entry.counter)
            counters[key] = nil
        }
    }
}
