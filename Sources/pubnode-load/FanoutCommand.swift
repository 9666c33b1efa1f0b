import ArgumentParser

/// `fanout`: delivery latency from one publisher to many parked long-poll subscribers.
struct FanoutCommand: AsyncParsableCommand {
    /// Subcommand name and help.
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "Fan-out latency: park N long-polls on one channel, publish M stamped messages, time deliveries."
    )

    /// Host, port, target and output options.
    @OptionGroup var common: CommonOptions

    /// Number of subscribers.
    @Option(help: "Long-poll subscribers, one connection each.")
    var subscribers = 1000

    /// Number of messages to publish.
    @Option(help: "Messages to publish.")
    var messages = 20

    /// Milliseconds between publishes.
    @Option(help: "Milliseconds between publishes.")
    var intervalMs = 200

    /// Publisher connections sharing the schedule.
    @Option(help: "Publisher connections taking the messages in turn, so each message is sent on schedule while earlier ones wait for their acknowledgement (up to publishers × interval).")
    var publishers = 4

    /// Channel used by every subscriber.
    @Option(help: "Channel name.")
    var channel = "fan"

    /// Seconds allowed for all subscribers to park.
    @Option(help: "Seconds allowed for all subscribers to park.")
    var parkTimeout: Double = 120

    /// Pause between "all parked" and the first publish.
    @Option(help: "Seconds to wait after all subscribers parked, before publishing.")
    var settle: Double = 1

    /// Seconds to wait for outstanding deliveries after the last publish.
    @Option(help: "Seconds to wait for deliveries after the last publish was acknowledged.")
    var grace: Double = 5

    /// Seconds the subscribers stay connected after the last delivery, announced on standard error
    /// when it begins: a profiler of the server stops there, leaving the connections' close out.
    @Option(help: "Seconds to keep the subscribers connected after every message was delivered, announced on standard error (\"fanout: holding\") when it begins.")
    var hold: Double = 0

    /// Seconds allowed for publishing all messages before the run is cut short.
    @Option(help: "Seconds allowed for all publishes (default: messages × interval + 60).")
    var publishTimeout: Double?

    /// A subscribe filter sent on every subscriber's poll (PubNode only).
    @Option(help: "Filter expression sent as filter-expr on every subscribe (PubNode only).")
    var filterExpr: String?

    /// Publisher metadata sent on every publish (PubNode only).
    @Option(help: "JSON text sent as meta on every publish (PubNode only).")
    var meta: String?

    /// Whether to print the latency percentiles of each message too.
    @Flag(help: "Also print p50/p99/max delivery latency of each message, in publish order.")
    var byMessage = false

    /// Checks the bounds of every option.
    mutating func validate() throws {
        guard (1...60_000).contains(subscribers) else { throw ValidationError("--subscribers must be 1...60000") }
        guard (1...10_000).contains(messages) else { throw ValidationError("--messages must be 1...10000") }
        guard (0...60_000).contains(intervalMs) else { throw ValidationError("--interval-ms must be 0...60000") }
        guard (1...64).contains(publishers) else { throw ValidationError("--publishers must be 1...64") }
        guard parkTimeout > 0, parkTimeout <= 3600 else { throw ValidationError("--park-timeout must be in (0, 3600]") }
        if let publishTimeout, !(publishTimeout > 0 && publishTimeout <= 3600) {
            throw ValidationError("--publish-timeout must be in (0, 3600]")
        }
        guard (filterExpr?.utf8.count ?? 0) <= 4_096, (meta?.utf8.count ?? 0) <= 4_096 else {
            throw ValidationError("--filter-expr and --meta must be at most 4096 bytes")
        }
        guard settle >= 0, settle <= 60, grace >= 0, grace <= 600, hold >= 0, hold <= 600 else {
            throw ValidationError("--settle must be in [0, 60], --grace and --hold in [0, 600]")
        }
    }

    /// Runs the scenario and prints the results.
    func run() async throws {
        FileLimit.raiseToHardMaximum()
        // The publishers get a loop of their own, so a saturated subscriber loop cannot delay them.
        let runtime = ClientRuntime(options: common, reserved: 1)
        var factory = common.requestFactory
        if let filterExpr { factory.subscribeQuery = "&filter-expr=" + PercentEncoding.encode(filterExpr) }
        if let meta { factory.publishQuery = "&meta=" + PercentEncoding.encode(meta) }
        let progress = SubscriberProgress()
        let fleet = SubscriberFleet(
            count: subscribers, channel: channel, factory: factory, runtime: runtime, progress: progress
        )
        let task = fleet.start()
        let parked = await fleet.waitParked(timeout: parkTimeout)
        if parked.allParked {
            Console.note("fanout: \(subscribers) parked")
        } else {
            Console.note("fanout: only \(progress.parked) of \(subscribers) parked after \(parkTimeout) s; publishing anyway")
        }
        await Waiting.sleep(seconds: settle)
        // Message 0 is due a little after now, so that every lane is connected in time.
        let publishStart = MonotonicClock.now() + 50_000_000
        let lanes = (0..<publishers).map { lane in
            Worker(
                driver: TimedPublisherDriver(
                    factory: factory, channel: channel, total: messages, intervalMillis: intervalMs,
                    lane: lane, lanes: publishers, startAt: publishStart, progress: progress
                ),
                loop: runtime.reservedLoops[0]
            )
        }
        let cpuStart = ProcessCPU.seconds()
        let allowed = publishTimeout ?? (Double(messages * intervalMs) / 1000 + 60)
        let watchdog = Task {
            try await Task.sleep(for: .nanoseconds(Int64(Waiting.nanos(seconds: allowed))))
            progress.markStopping()
            runtime.stop()
        }
        await runtime.run(all: lanes)
        watchdog.cancel()
        // From message 0's slot (a watchdog firing before it leaves nothing to count).
        let publishSeconds = MonotonicClock.now() > publishStart ? Waiting.seconds(since: publishStart) : 0
        let timedOut = progress.isStopping
        if timedOut { Console.note("fanout: publishing took longer than \(allowed) s; run cut short") }
        let expected = subscribers * messages
        let complete = await Waiting.until(timeout: timedOut ? 0 : grace) { progress.delivered >= expected }
        let clientCPU = ProcessCPU.seconds() - cpuStart
        if hold > 0 {
            Console.note("fanout: holding \(progress.parked) subscribers for \(hold) s")
            await Waiting.sleep(seconds: hold)
        }
        await fleet.stop(task)
        let delivery = LatencySummary(samples: await fleet.latencies())
        let perMessage = byMessage ? await fleet.latenciesByMessage() : [:]
        let publishRTT = LatencySummary(samples: await runtime.collect(lanes) { $0.latencies }.flatMap { $0 })
        let publishLate = await runtime.collect(lanes) { $0.maxLateness }.max() ?? 0
        await runtime.shutdown()

        var record = ResultRecord()
        record.add("scenario", "fanout")
        record.add("target", common.target.rawValue)
        record.add("subscribers", subscribers)
        record.add("messages", messages)
        record.add("interval_ms", intervalMs)
        if let filterExpr { record.add("filter_expr", filterExpr) }
        record.add("parked", progress.parked)
        record.add("park_seconds", parked.seconds, decimals: 2)
        record.add("published", progress.published)
        record.add("publish_seconds", publishSeconds, decimals: 2)
        record.add("expected", expected)
        record.add("delivered", progress.delivered)
        // The tool's own CPU from the first publish to the last delivery (its cost per delivery
        // is client_cpu_s / delivered).
        record.add("client_cpu_s", clientCPU, decimals: 3)
        record.add("delivered_ratio", expected > 0 ? Double(progress.delivered) / Double(expected) : 0, decimals: 4)
        record.add("complete", complete ? "yes" : "no")
        record.add("publish_timed_out", timedOut ? "yes" : "no")
        record.add("duplicates", progress.duplicates)
        record.add("stale_ignored", progress.stale)
        record.add("errors", progress.errors.count)
        record.add("publish_errors", progress.publishErrors.count)
        record.add("reconnects", runtime.reconnects)
        record.add(latency: delivery, prefix: "delivery")
        record.add("publish_rtt_p50_ms", LatencySummary.ms(publishRTT.p50))
        record.add("publish_rtt_max_ms", LatencySummary.ms(publishRTT.max))
        // How far the schedule slipped: the most any publish left after its due instant.
        record.add("publishers", publishers)
        record.add("publish_late_max_ms", LatencySummary.ms(publishLate))
        for (sequence, samples) in perMessage.sorted(by: { $0.key < $1.key }) {
            let summary = LatencySummary(samples: samples)
            record.add(
                "message_\(sequence)_p50_p99_max_ms",
                "\(LatencySummary.ms(summary.p50).rounded()) / \(LatencySummary.ms(summary.p99).rounded()) / "
                    + "\(LatencySummary.ms(summary.max).rounded()) (\(summary.count))"
            )
        }
        let samples = progress.errors.samples + progress.publishErrors.samples.map { "publisher: \($0)" }
        if let first = samples.first { record.add("first_error", first) }
        record.emit(title: "fanout results", errorSamples: samples, json: common.json)
    }
}
