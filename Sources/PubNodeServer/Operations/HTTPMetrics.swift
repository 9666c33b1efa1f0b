import NIOCore

/// Requests by endpoint family and status, and answer latency by family, rendered in Prometheus'
/// text format at scrape time.
///
/// Each event loop writes a share of its own (`LoopShare`, handed to the loop's connections once):
/// a request adds to counters that no other core writes, with no lock, no reference counted on the
/// way and no cache line bounced between the loops; a scrape sums the shares. (Counters made through
/// swift-metrics cost three retains and releases of objects every loop shares, and an atomic add on
/// a line they share, per request.) A series appears once it counts anything.
final class HTTPMetrics: Sendable {
    /// Statuses the node answers with, given slots of their own; others are counted apart.
    static let statuses: [UInt] = [200, 204, 304, 400, 401, 403, 404, 405, 408, 409, 412, 413, 414, 429, 431,
                                   481, 500, 502, 503, 504]
    /// The counter's and the histogram's names.
    static let requestsLabel = "pubnode_http_requests_total"
    static let durationLabel = "pubnode_http_request_duration_seconds"

    /// The latency buckets' upper bounds, in nanoseconds, ascending.
    let bounds: [Int64]
    /// Every loop's share.
    private let shares: PerLoop<LoopShare>

    /// No requests yet; latency in buckets bounded by `bounds` (ascending).
    init(bounds: [Duration]) {
        let bounds = bounds.map { Int64($0.components.seconds) * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }
        self.bounds = bounds
        shares = PerLoop { _ in LoopShare(bounds: bounds) }
    }

    /// The share the connections of `loop` write, made the first time the loop asks.
    func share(for loop: any EventLoop) -> LoopShare {
        shares.value(for: loop)
    }

    /// Appends the request counters and the latency histograms, summed over every loop's share.
    func render(into out: inout [UInt8]) {
        var total = LoopShare.Totals(families: RequestFamily.allCases.count, buckets: bounds.count + 1)
        for share in shares.all { share.add(to: &total) }
        out.append(contentsOf: "# TYPE \(Self.requestsLabel) counter\n".utf8)
        for family in RequestFamily.allCases {
            for (column, status) in Self.statuses.enumerated() {
                Self.line(Self.requestsLabel, family: family, status: status,
                          value: total.counts[family.rawValue * Self.statuses.count + column], into: &out)
            }
        }
        for (key, value) in total.rare.sorted(by: { $0.key < $1.key }) {
            guard let family = RequestFamily(rawValue: key / 1000) else { continue }
            Self.line(Self.requestsLabel, family: family, status: UInt(key % 1000), value: value, into: &out)
        }
        out.append(contentsOf: "# TYPE \(Self.durationLabel) histogram\n".utf8)
        for family in RequestFamily.allCases {
            let buckets = total.buckets[(family.rawValue * (bounds.count + 1))...].prefix(bounds.count + 1)
            Self.renderHistogram(Self.durationLabel, labels: "family=\"\(family.label)\"", bounds: bounds,
                                 buckets: Array(buckets), sumNanoseconds: total.sums[family.rawValue], into: &out)
        }
    }

    private static func line(_ name: String, family: RequestFamily, status: UInt, value: UInt64, into out: inout [UInt8]) {
        guard value > 0 else { return }
        out.append(contentsOf: "\(name){family=\"\(family.label)\",status=\"\(status)\"} \(value)\n".utf8)
    }

    /// Appends one histogram's lines (`name_bucket` cumulative, `name_sum`, `name_count`, with
    /// `labels`, e.g. `family="publish"`) from its per-bucket counts, unless nothing was observed.
    static func renderHistogram(_ name: String, labels: String, bounds: [Int64], buckets: [UInt64],
                                sumNanoseconds: UInt64, into out: inout [UInt8]) {
        let count = buckets.reduce(0, &+)
        guard count > 0 else { return }
        var cumulative: UInt64 = 0
        for (index, bucket) in buckets.enumerated() {
            cumulative &+= bucket
            let bound = index < bounds.count ? String(Double(bounds[index]) / 1e9) : "+Inf"
            out.append(contentsOf: "\(name)_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n".utf8)
        }
        out.append(contentsOf: "\(name)_sum{\(labels)} \(Double(sumNanoseconds) / 1e9)\n".utf8)
        out.append(contentsOf: "\(name)_count{\(labels)} \(count)\n".utf8)
    }
}
