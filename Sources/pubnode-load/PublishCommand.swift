import ArgumentParser

/// `publish`: closed-loop publish throughput over keep-alive connections.
struct PublishCommand: AsyncParsableCommand {
    /// Subcommand name and help.
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish throughput: N keep-alive connections, one request in flight each (like wrk)."
    )

    /// Host, port, target and output options.
    @OptionGroup var common: CommonOptions

    /// Concurrent connections.
    @Option(help: "Keep-alive connections.")
    var connections = 64

    /// Measured seconds (after warm-up).
    @Option(help: "Measured duration in seconds, after the warm-up.")
    var duration: Double = 10

    /// Warm-up seconds, excluded from the figures.
    @Option(help: "Warm-up in seconds, excluded from the results.")
    var warmup: Double = 1

    /// Size of the published JSON message in bytes (a JSON string, quotes included).
    @Option(help: "Message size in bytes: a JSON string of this length, quotes included.")
    var payloadSize = 16

    /// Number of distinct channels, used round-robin.
    @Option(help: "Number of channels, used round-robin.")
    var channels = 1

    /// Channel name prefix.
    @Option(help: "Channel name prefix; channels are <prefix>0, <prefix>1, ...")
    var channelPrefix = "bench"

    /// Checks the bounds of every option.
    mutating func validate() throws {
        guard (1...20_000).contains(connections) else { throw ValidationError("--connections must be 1...20000") }
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration must be in (0, 3600]") }
        guard warmup >= 0, warmup <= 60 else { throw ValidationError("--warmup must be in [0, 60]") }
        guard (2...65_536).contains(payloadSize) else { throw ValidationError("--payload-size must be 2...65536") }
        guard (1...100_000).contains(channels) else { throw ValidationError("--channels must be 1...100000") }
    }

    /// Runs the scenario and prints the results.
    func run() async throws {
        FileLimit.raiseToHardMaximum()
        let runtime = ClientRuntime(options: common)
        let factory = common.requestFactory
        let errorLog = ErrorLog()
        let message = "\"" + String(repeating: "x", count: payloadSize - 2) + "\""
        let requests = (0..<channels).map { factory.publish(channel: "\(channelPrefix)\($0)", message: message) }
        let start = MonotonicClock.now()
        let cpuStart = ProcessCPU.seconds()
        let measureFrom = start + Waiting.nanos(seconds: warmup)
        let measureUntil = measureFrom + Waiting.nanos(seconds: duration)
        let workers = (0..<connections).map { index in
            Worker(
                driver: PublishDriver(
                    requests: requests, offset: index, factory: factory,
                    measureFrom: measureFrom, measureUntil: measureUntil, errorLog: errorLog
                ),
                loop: runtime.loop(for: index),
                port: runtime.port(for: index)
            )
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(warmup + duration + 10))
            runtime.stop()
        }
        await runtime.run(all: workers)
        watchdog.cancel()
        runtime.stop()
        let clientCPU = ProcessCPU.seconds() - cpuStart
        let stats = await runtime.collect(workers) { $0.stats }
        await runtime.shutdown()
        report(stats: stats, errorLog: errorLog, reconnects: runtime.reconnects, clientCPU: clientCPU)
    }

    /// Merges per-connection statistics and prints them.
    private func report(stats: [PublishStats], errorLog: ErrorLog, reconnects: Int, clientCPU: Double) {
        let accepted = stats.reduce(0) { $0 + $1.accepted }
        let errors = stats.reduce(0) { $0 + $1.errors }
        let latency = LatencySummary(samples: stats.flatMap(\.latencies))
        var record = ResultRecord()
        record.add("scenario", "publish")
        record.add("target", common.target.rawValue)
        record.add("connections", connections)
        record.add("duration_s", duration, decimals: 1)
        record.add("warmup_s", warmup, decimals: 1)
        record.add("payload_bytes", payloadSize)
        record.add("channels", channels)
        record.add("requests", accepted)
        record.add("requests_per_s", Double(accepted) / duration, decimals: 1)
        // The tool's own CPU over the whole run, warm-up included.
        record.add("client_cpu_s", clientCPU, decimals: 3)
        record.add("errors", errors)
        record.add("reconnects", reconnects)
        record.add(latency: latency, prefix: "latency")
        if let first = errorLog.samples.first { record.add("first_error", first) }
        record.emit(title: "publish results", errorSamples: errorLog.samples, json: common.json)
    }
}
