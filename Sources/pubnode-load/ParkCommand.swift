import ArgumentParser

/// `park`: hold N parked long-polls open, e.g. to measure server memory per subscriber.
struct ParkCommand: AsyncParsableCommand {
    /// Subcommand name and help.
    static let configuration = CommandConfiguration(
        commandName: "park",
        abstract: "Park N long-poll subscribers and hold them; prints \"parked N\" once all are parked."
    )

    /// Host, port, target and output options.
    @OptionGroup var common: CommonOptions

    /// Number of subscribers.
    @Option(help: "Long-poll subscribers, one connection each.")
    var subscribers = 10_000

    /// Seconds to hold them once parked.
    @Option(help: "Seconds to hold the subscribers once all are parked.")
    var hold: Double = 10

    /// Channel used by every subscriber.
    @Option(help: "Channel name.")
    var channel = "park"

    /// Seconds allowed for all subscribers to park.
    @Option(help: "Seconds allowed for all subscribers to park.")
    var parkTimeout: Double = 120

    /// Checks the bounds of every option.
    mutating func validate() throws {
        guard (1...60_000).contains(subscribers) else { throw ValidationError("--subscribers must be 1...60000") }
        guard hold >= 0, hold <= 3600 else { throw ValidationError("--hold must be in [0, 3600]") }
        guard parkTimeout > 0, parkTimeout <= 3600 else { throw ValidationError("--park-timeout must be in (0, 3600]") }
    }

    /// Runs the scenario and prints the results.
    func run() async throws {
        FileLimit.raiseToHardMaximum()
        let runtime = ClientRuntime(options: common)
        let progress = SubscriberProgress()
        let fleet = SubscriberFleet(
            count: subscribers, channel: channel, factory: common.requestFactory,
            runtime: runtime, progress: progress
        )
        let task = fleet.start()
        let parked = await fleet.waitParked(timeout: parkTimeout)
        let count = progress.parked
        Console.announce(parked.allParked ? "parked \(count)" : "parked \(count) (incomplete: wanted \(subscribers))")
        await Waiting.sleep(seconds: hold)
        let openAtEnd = runtime.openConnections
        await fleet.stop(task)
        await runtime.shutdown()

        var record = ResultRecord()
        record.add("scenario", "park")
        record.add("target", common.target.rawValue)
        record.add("subscribers", subscribers)
        record.add("parked", count)
        record.add("park_seconds", parked.seconds, decimals: 2)
        record.add("hold_s", hold, decimals: 1)
        record.add("open_at_end", openAtEnd)
        record.add("errors", progress.errors.count)
        record.add("reconnects", runtime.reconnects)
        if let first = progress.errors.samples.first { record.add("first_error", first) }
        record.emit(title: "park results", errorSamples: progress.errors.samples, json: common.json)
    }
}
