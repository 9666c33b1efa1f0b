/// A set of long-poll subscribers on one channel, run in the background until stopped.
struct SubscriberFleet: Sendable {
    /// Connections and loops.
    let runtime: ClientRuntime
    /// Shared counters.
    let progress: SubscriberProgress
    /// One worker per subscriber.
    let workers: [Worker<SubscriberDriver>]

    /// Creates `count` subscribers of `channel`, spread over the runtime's loops and ports.
    init(count: Int, channel: String, factory: RequestFactory, runtime: ClientRuntime, progress: SubscriberProgress) {
        self.runtime = runtime
        self.progress = progress
        workers = (0..<count).map { index in
            Worker(
                driver: SubscriberDriver(index: index, channel: channel, factory: factory, progress: progress),
                loop: runtime.loop(for: index),
                port: runtime.port(for: index)
            )
        }
    }

    /// Starts every subscriber; the returned task ends once all of them have stopped.
    func start() -> Task<Void, Never> {
        let runtime = self.runtime
        let workers = self.workers
        return Task { await runtime.run(all: workers) }
    }

    /// Waits until every subscriber is parked or `timeout` seconds pass; returns the seconds taken.
    func waitParked(timeout: Double) async -> (allParked: Bool, seconds: Double) {
        let start = MonotonicClock.now()
        let count = workers.count
        let progress = self.progress
        let done = await Waiting.until(timeout: timeout) { progress.parked >= count }
        return (done, Waiting.seconds(since: start))
    }

    /// Stops all subscribers and waits for their tasks.
    func stop(_ task: Task<Void, Never>) async {
        progress.markStopping()
        runtime.stop()
        await task.value
    }

    /// All delivery latencies recorded by the subscribers, in nanoseconds.
    func latencies() async -> [UInt64] {
        await runtime.collect(workers) { $0.latencies }.flatMap { $0 }
    }

    /// Delivery latencies grouped by the message's sequence number, in nanoseconds.
    func latenciesByMessage() async -> [Int: [UInt64]] {
        let pairs = await runtime.collect(workers) { Array(zip($0.sequences, $0.latencies)) }
        var grouped: [Int: [UInt64]] = [:]
        for (sequence, latency) in pairs.joined() { grouped[sequence, default: []].append(latency) }
        return grouped
    }
}
