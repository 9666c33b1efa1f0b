import ArgumentParser
import PubNodeClient

/// `pubnode-cli fire CHANNEL [MESSAGE]`: sends a message to the node's server-side handlers only.
public struct FireCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "fire",
        abstract: "Fire a message to the node's server-side handlers only (not delivered, not stored).",
        discussion: """
        MESSAGE follows the same rules as publish (JSON if it parses, a string otherwise; standard \
        input when omitted).

        Examples:
          pubnode-cli fire orders '{"id":42,"total":9.5}'
          pubnode-cli fire orders '{"id":43}' --meta '{"source":"cli"}'
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channel.
    @Argument(help: "The channel.") public var channel: String

    /// The message; standard input when absent.
    @Argument(help: "The message (read from standard input when omitted).") public var message: String?

    /// JSON sent as `meta`.
    @Option(help: ArgumentHelp("JSON delivered with the message as meta.", valueName: "json")) public var meta: String?

    /// Send the text as a string even when it is valid JSON.
    @Flag(help: "Send the message as a JSON string even if it parses as JSON.") public var string = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks `--meta`.
    public func validate() throws {
        if let meta { _ = try MessageInput.json(meta, option: "--meta") }
    }

    /// Fires the message and prints its timetoken.
    public func run() async throws {
        let configuration = try global.configuration()
        let client = PubNodeClient(configuration: configuration)
        let payload = try MessageInput.single(argument: message, asString: string)
        let meta = try meta.map { try MessageInput.json($0, option: "--meta") }
        let timetoken = try await reporting(configuration.origin) { () async throws(PubNodeClientError) in
            try await client.fire(channel: channel, message: payload, meta: meta)
        }
        PublishOutput.print(channel: channel, timetoken: timetoken, json: global.json)
    }
}
