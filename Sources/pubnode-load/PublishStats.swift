/// Counters of one throughput publisher connection, read once the run is over.
struct PublishStats: Sendable {
    /// Accepted publishes sent after warm-up and answered before the end.
    var accepted = 0
    /// Errors of the whole run (warm-up included).
    var errors = 0
    /// Latency of each counted publish, in nanoseconds.
    var latencies: [UInt64] = []
}
