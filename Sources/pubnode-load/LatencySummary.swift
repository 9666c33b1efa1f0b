/// Percentiles of a set of latency samples (nanoseconds), computed exactly by sorting.
struct LatencySummary: Sendable {
    /// Number of samples.
    let count: Int
    /// Median, in nanoseconds.
    let p50: UInt64
    /// 90th percentile, in nanoseconds.
    let p90: UInt64
    /// 99th percentile, in nanoseconds.
    let p99: UInt64
    /// Largest sample, in nanoseconds.
    let max: UInt64
    /// Arithmetic mean, in nanoseconds.
    let mean: Double

    /// Summarises `samples` (consumed and sorted in place).
    init(samples: [UInt64]) {
        var sorted = samples
        sorted.sort()
        count = sorted.count
        func rank(_ p: Double) -> UInt64 {
            guard !sorted.isEmpty else { return 0 }
            let index = Int((p * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = sorted.last ?? 0
        mean = sorted.isEmpty ? 0 : Double(sorted.reduce(0, &+)) / Double(sorted.count)
    }

    /// Nanoseconds to milliseconds.
    static func ms(_ nanos: UInt64) -> Double { Double(nanos) / 1_000_000 }
}
