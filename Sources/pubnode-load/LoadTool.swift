import ArgumentParser

/// Entry point of `pubnode-load`, a loopback-only HTTP load generator for PubNode and Nchan.
@main
struct LoadTool: AsyncParsableCommand {
    /// Command description and the list of scenarios.
    static let configuration = CommandConfiguration(
        commandName: "pubnode-load",
        abstract: "Benchmark load generator for PubNode (PubNub HTTP protocol) and Nchan.",
        discussion: """
            Only loopback targets are accepted. Every scenario is bounded in time and \
            request count and stops by itself.
            """,
        subcommands: [PublishCommand.self, FanoutCommand.self, ParkCommand.self, PresenceCommand.self, FloorCommand.self]
    )
}
