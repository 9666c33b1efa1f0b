import ArgumentParser
import PubNodeClient

/// `pubnode-cli where-now [UUID]`: the channels a user is present on.
public struct WhereNowCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "where-now",
        abstract: "List the channels a user id is present on.",
        discussion: """
        Prints one channel per line (a JSON array with --json). Without UUID, asks about --uuid.

        Examples:
          pubnode-cli where-now alice
          pubnode-cli where-now alice --json
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The user id to look up.
    @Argument(help: "The user id (default: --uuid).") public var user: String?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Asks the node and prints.
    public func run() async throws {
        let channels = try await global.request { client async throws(PubNodeClientError) in
            try await client.whereNow(uuid: user)
        }
        if global.json {
            Console.standardOutput.write(JSONValue.array(channels.sorted().map(JSONValue.string)).jsonString)
        } else {
            for channel in channels.sorted() { Console.standardOutput.write(channel) }
        }
    }
}
