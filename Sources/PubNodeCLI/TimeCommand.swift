import ArgumentParser
import PubNodeClient

/// `pubnode-cli time`: the node's current timetoken.
public struct TimeCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "time",
        abstract: "Print the node's current timetoken (also a quick reachability check).",
        discussion: """
        Prints the 17-digit timetoken (100 ns units since 1970); --json adds the UTC time.

        Examples:
          pubnode-cli time
          pubnode-cli subscribe chat --timetoken "$(pubnode-cli time)"
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Asks the node and prints.
    public func run() async throws {
        let timetoken = try await global.request { client async throws(PubNodeClientError) in
            try await client.time()
        }
        if global.json {
            let formatter = OutputFormatter(style: Style(enabled: false))
            let object: JSONValue = ["timetoken": .string(String(timetoken)), "time": .string(formatter.isoTime(timetoken))]
            Console.standardOutput.write(object.jsonString)
        } else {
            Console.standardOutput.write(String(timetoken))
        }
    }
}
