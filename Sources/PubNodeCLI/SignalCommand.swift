import ArgumentParser
import PubNodeClient

/// `pubnode-cli signal CHANNEL [MESSAGE]`: sends a signal (a small payload, never stored).
public struct SignalCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Send a signal: a small message (30 bytes of JSON by default), never stored.",
        discussion: """
        MESSAGE follows the same rules as publish (JSON if it parses, a string otherwise; standard \
        input when omitted). Subscribers receive it marked as a signal.

        Examples:
          pubnode-cli signal chat typing
          pubnode-cli signal game '{"x":3,"y":4}'
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channel.
    @Argument(help: "The channel.") public var channel: String

    /// The payload; standard input when absent.
    @Argument(help: "The payload (read from standard input when omitted).") public var message: String?

    /// Send the text as a string even when it is valid JSON.
    @Flag(help: "Send the payload as a JSON string even if it parses as JSON.") public var string = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Sends the signal and prints its timetoken.
    public func run() async throws {
        let configuration = try global.configuration()
        let client = PubNodeClient(configuration: configuration)
        let payload = try MessageInput.single(argument: message, asString: string)
        let timetoken = try await reporting(configuration.origin) { () async throws(PubNodeClientError) in
            try await client.signal(channel: channel, message: payload)
        }
        PublishOutput.print(channel: channel, timetoken: timetoken, json: global.json)
    }
}
