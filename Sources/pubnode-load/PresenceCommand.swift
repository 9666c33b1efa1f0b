import ArgumentParser

/// `presence`: many uuids heartbeating, here-now on a crowded channel, and publish latency while
/// the node sweeps all their timeouts at once. PubNode only.
struct PresenceCommand: AsyncParsableCommand {
    /// Subcommand name and help.
    static let configuration = CommandConfiguration(
        commandName: "presence",
        abstract: "Presence at scale: N uuids heartbeat M channels plus one crowd channel; here-now latency on the "
            + "crowd; publish latency while their timeouts are swept."
    )

    /// Host, port, target and output options.
    @OptionGroup var common: CommonOptions

    /// Number of uuids.
    @Option(help: "Uuids; each is on its own channel (of --channels) and on the crowd channel.")
    var uuids = 10_000

    /// Number of ordinary channels.
    @Option(help: "Channels the uuids are spread over.")
    var channels = 1_000

    /// Heartbeat connections.
    @Option(help: "Keep-alive connections sending heartbeats.")
    var connections = 64

    /// Heartbeats per uuid.
    @Option(help: "Heartbeats per uuid, sent back to back.")
    var rounds = 3

    /// Presence timeout sent with each heartbeat.
    @Option(help: "Presence timeout (heartbeat parameter) in seconds; the node's minimum is 20.")
    var presenceTimeout = 20

    /// Here-now requests on the crowd channel.
    @Option(help: "Here-now requests (listing every uuid) on the crowd channel.")
    var hereNowSamples = 50

    /// Milliseconds between probe publishes.
    @Option(help: "Milliseconds between the publishes timed throughout the run.")
    var publishIntervalMs = 10

    /// Channel name prefix.
    @Option(help: "Channel name prefix.")
    var prefix = "pres"

    /// Seconds allowed for the heartbeats.
    @Option(help: "Seconds allowed for all heartbeats.")
    var heartbeatTimeout: Double = 300

    /// Checks the bounds of every option.
    mutating func validate() throws {
        guard common.target == .pubnode else { throw ValidationError("presence runs against PubNode only") }
        guard (1...200_000).contains(uuids) else { throw ValidationError("--uuids must be 1...200000") }
        guard (1...100_000).contains(channels) else { throw ValidationError("--channels must be 1...100000") }
        guard (1...10_000).contains(connections) else { throw ValidationError("--connections must be 1...10000") }
        guard (1...100).contains(rounds) else { throw ValidationError("--rounds must be 1...100") }
        guard (1...3600).contains(presenceTimeout) else { throw ValidationError("--presence-timeout must be 1...3600") }
        guard (1...10_000).contains(hereNowSamples) else { throw ValidationError("--here-now-samples must be 1...10000") }
        guard (1...10_000).contains(publishIntervalMs) else { throw ValidationError("--publish-interval-ms must be 1...10000") }
        guard heartbeatTimeout > 0, heartbeatTimeout <= 3600 else { throw ValidationError("--heartbeat-timeout must be in (0, 3600]") }
    }

    /// Runs the scenario and prints the results.
    func run() async throws {
        FileLimit.raiseToHardMaximum()
        let runtime = ClientRuntime(options: common)
        let factory = common.requestFactory
        let progress = PresenceProgress()
        let crowd = "\(prefix)-crowd"
        let publisher = Worker(
            driver: ProbeDriver(request: factory.publish(channel: "\(prefix)-probe", message: "\"x\""),
                                intervalMillis: publishIntervalMs, limit: nil, readsOccupancy: false, progress: progress),
            loop: runtime.loop(for: connections))
        let publishing = Task { await runtime.run(publisher) }
        await Waiting.sleep(seconds: 1)

        let heartbeatStart = MonotonicClock.now()
        let beaters = (0..<connections).map { index in
            Worker(driver: HeartbeatDriver(uuids: Array(stride(from: index, to: uuids, by: connections)), channels: channels,
                                           prefix: prefix, crowd: crowd, timeoutSeconds: presenceTimeout, rounds: rounds,
                                           factory: factory, progress: progress),
                   loop: runtime.loop(for: index))
        }
        let beating = Task { await runtime.run(all: beaters) }
        let watchdog = Task {
            try await Task.sleep(for: .nanoseconds(Int64(Waiting.nanos(seconds: heartbeatTimeout))))
            progress.stopHeartbeats()
        }
        await beating.value
        watchdog.cancel()
        let lastHeartbeatAt = MonotonicClock.now()
        let heartbeatSeconds = Waiting.seconds(since: heartbeatStart)

        let hereNow = Worker(
            driver: ProbeDriver(request: factory.hereNow(channel: crowd, listUUIDs: true), intervalMillis: 50,
                                limit: hereNowSamples, readsOccupancy: true, progress: progress),
            loop: runtime.loop(for: connections + 1))
        await runtime.run(hereNow)
        let crowdOccupancy = progress.occupancy

        let watcher = Worker(
            driver: ProbeDriver(request: factory.hereNow(channel: crowd, listUUIDs: false), intervalMillis: 100,
                                limit: nil, readsOccupancy: true, progress: progress),
            loop: runtime.loop(for: connections + 1))
        let watching = Task { await runtime.run(watcher) }
        let drained = await Waiting.until(timeout: Double(presenceTimeout) + 30) { progress.occupancy == 0 }
        let drainedAt = MonotonicClock.now()
        await Waiting.sleep(seconds: 1)
        progress.stopProbes()
        runtime.stop()
        await publishing.value
        await watching.value

        let heartbeatRTT = LatencySummary(samples: await runtime.collect(beaters) { $0.latencies }.flatMap { $0 })
        let hereNowRTT = LatencySummary(samples: await runtime.collect([hereNow]) { $0.samples.map(\.latency) }.flatMap { $0 })
        let publishSamples = await runtime.collect([publisher]) { $0.samples }.flatMap { $0 }
        await runtime.shutdown()
        let sweepFrom = lastHeartbeatAt + Waiting.nanos(seconds: Double(presenceTimeout) - 1)
        let baseline = LatencySummary(samples: publishSamples.filter { $0.sentAt < heartbeatStart }.map(\.latency))
        let duringSweep = LatencySummary(samples: publishSamples.filter {
            $0.sentAt >= sweepFrom && $0.sentAt <= drainedAt + 1_000_000_000
        }.map(\.latency))

        var record = ResultRecord()
        record.add("scenario", "presence")
        record.add("uuids", uuids)
        record.add("channels", channels)
        record.add("connections", connections)
        record.add("joined", progress.joined)
        record.add("heartbeats", progress.heartbeats)
        record.add("heartbeat_seconds", heartbeatSeconds, decimals: 2)
        record.add("heartbeats_per_s", Double(progress.heartbeats) / max(heartbeatSeconds, 0.001), decimals: 1)
        record.add(latency: heartbeatRTT, prefix: "heartbeat")
        record.add("crowd_occupancy", crowdOccupancy)
        record.add(latency: hereNowRTT, prefix: "here_now")
        record.add("timeouts_drained", drained ? "yes" : "no")
        record.add("drain_seconds_after_last_heartbeat", Double(drainedAt - lastHeartbeatAt) / 1_000_000_000, decimals: 2)
        record.add(latency: baseline, prefix: "publish_idle")
        record.add(latency: duringSweep, prefix: "publish_during_sweep")
        record.add("errors", progress.errors.count)
        record.add("probe_errors", progress.probeErrors.count)
        record.add("reconnects", runtime.reconnects)
        let samples = progress.errors.samples + progress.probeErrors.samples
        if let first = samples.first { record.add("first_error", first) }
        record.emit(title: "presence results", errorSamples: samples, json: common.json)
    }
}
