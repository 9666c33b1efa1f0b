import ArgumentParser
import Foundation
import PubNodeClient

/// `pubnode-cli stats`: the node's overview and busiest channels, once or refreshed with `--watch`.
public struct StatsCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show the node's connections, traffic, keysets and busiest channels.",
        discussion: """
        Reads the node's admin stats endpoint, so it needs the admin token (--admin-token or \
        PUBNODE_ADMIN_TOKEN). Prints an overview (uptime, connections, parked long-polls, channels, \
        occupancy, totals since the node started), a line per keyset and a table of the busiest \
        channels. --watch refreshes it every --interval seconds and adds publish and delivery rates \
        per second, computed from the difference of two samples; on a terminal the screen is \
        redrawn, otherwise each sample follows the last. --json prints the node's document as it \
        is (one per line with --watch).

        Examples:
          pubnode-cli stats --admin-token "$ADMIN"
          PUBNODE_ADMIN_TOKEN=… pubnode-cli stats --watch --interval 5 --channels 10
          pubnode-cli stats --json | jq .totals
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The admin token.
    @OptionGroup public var admin: AdminOptions

    /// How many busiest channels to list.
    @Option(help: ArgumentHelp("Busiest channels listed, 0...200 (default: the node's, 20).", valueName: "N"))
    public var channels: Int?

    /// Refresh until interrupted.
    @Flag(help: "Refresh until Ctrl-C, with rates per second.") public var watch = false

    /// Seconds between samples.
    @Option(help: ArgumentHelp("Seconds between samples with --watch (default 2).", valueName: "seconds"))
    public var interval: Double = 2

    /// Stop after this many samples.
    @Option(help: ArgumentHelp("With --watch, exit after N samples.", valueName: "N"))
    public var count: Int?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the values given on the command line.
    public func validate() throws {
        if let channels, !(0...PubNodeClient.maxStatsChannels).contains(channels) {
            throw ValidationError("--channels must be in 0...\(PubNodeClient.maxStatsChannels)")
        }
        if !(interval > 0) || !interval.isFinite { throw ValidationError("--interval must be greater than 0") }
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
        if count != nil && !watch { throw ValidationError("--count needs --watch") }
    }

    /// ANSI: cursor home, then clear the screen.
    static let clearScreen = "\u{1B}[H\u{1B}[2J"

    /// Fetches and prints one sample, or keeps sampling with `--watch`.
    public func run() async throws {
        let token = try admin.token()
        let configuration = try global.configuration()
        let client = PubNodeClient(configuration: configuration)
        let style = global.formatter().style
        let redraw = watch && Terminal.isTerminal(1)
        var previous: NodeStats?
        var samples = 0
        while true {
            let (document, stats) = try await sample(client, token: token, origin: configuration.origin)
            if global.json {
                Console.standardOutput.write(document.jsonString)
            } else {
                let rates = previous.flatMap { StatsRates.between($0, stats) }
                var text = StatsOutput.text(stats, rates: watch ? .some(rates) : .none, style: style)
                if redraw {
                    text = Self.clearScreen + text
                } else if samples > 0 {
                    text = "\n" + text
                }
                Console.standardOutput.write(text)
            }
            samples += 1
            guard watch, samples < count ?? .max, !Console.standardOutput.isClosed else { return }
            previous = stats
            try await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
        }
    }

    /// One stats document and its decoded form; a refused token (401 wrong, 403 no admin API)
    /// becomes an error saying so.
    private func sample(_ client: PubNodeClient, token: String,
                        origin: String) async throws -> (JSONValue, NodeStats) {
        do throws(PubNodeClientError) {
            let document = try await client.statsDocument(adminToken: token, channels: channels)
            return (document, try document.decode(NodeStats.self))
        } catch .accessDenied(let denial) {
            // 403: the node has no admin token configured (its admin API is off).
            throw CLIError("the node refused the admin token (403 \(denial.message))")
        } catch .server(401, let message) {
            // 401: a missing or wrong token.
            throw CLIError("the node refused the admin token (401 \(message))")
        } catch {
            throw CLIError(error, origin: origin)
        }
    }
}
