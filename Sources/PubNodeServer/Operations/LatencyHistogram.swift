import Atomics

/// A latency histogram in Prometheus' shape kept in relaxed atomics, so that observing a request
/// takes no lock (a registry histogram guards each series with one, which every event loop would
/// take on every publish). Rendered at scrape time in the text format.
///
/// Invariant: each bucket and the sum only grow; a scrape may see an observation in a bucket
/// before its share of the sum, never a torn value. The rendered `+Inf` bucket and `_count` are
/// the total of the buckets read, so a rendered histogram is always cumulative and consistent.
final class LatencyHistogram: Sendable {
    /// Upper bounds, in nanoseconds, ascending; one more bucket holds everything above the last.
    let bounds: [Int64]
    private let buckets: [ManagedAtomic<Int>]
    private let sumNanoseconds = ManagedAtomic<Int64>(0)

    /// A histogram over `bounds` (ascending durations).
    init(bounds: [Duration]) {
        self.bounds = bounds.map { Int64($0.components.seconds) * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }
        buckets = (0...bounds.count).map { _ in ManagedAtomic(0) }
    }

    /// Observes one duration.
    func record(nanoseconds: UInt64) {
        let value = Int64(clamping: nanoseconds)
        var index = 0
        while index < bounds.count, value > bounds[index] { index += 1 }
        buckets[index].wrappingIncrement(ordering: .relaxed)
        sumNanoseconds.wrappingIncrement(by: value, ordering: .relaxed)
    }

    /// Appends this histogram's lines (`name_bucket`, `name_sum`, `name_count` with `labels`,
    /// e.g. `family="publish"`) unless nothing was observed.
    func render(name: String, labels: String, into out: inout [UInt8]) {
        var cumulative = 0
        var lines: [String] = []
        for (index, bucket) in buckets.enumerated() {
            cumulative += bucket.load(ordering: .relaxed)
            let bound = index < bounds.count ? Self.seconds(bounds[index]) : "+Inf"
            lines.append("\(name)_bucket{\(labels),le=\"\(bound)\"} \(cumulative)")
        }
        guard cumulative > 0 else { return }
        lines.append("\(name)_sum{\(labels)} \(Double(sumNanoseconds.load(ordering: .relaxed)) / 1e9)")
        lines.append("\(name)_count{\(labels)} \(cumulative)")
        for line in lines {
            out.append(contentsOf: line.utf8)
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// Seconds as Prometheus writes a bucket bound (`0.0005`, `1.0`).
    static func seconds(_ nanoseconds: Int64) -> String {
        String(Double(nanoseconds) / 1e9)
    }
}
