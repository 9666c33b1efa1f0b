import ArgumentParser
import Foundation
import PubNodeClient

/// `pubnode-cli publish CHANNEL [MESSAGE]`: publishes a message, or one per line of standard input.
public struct PublishCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a message to a channel and print its timetoken.",
        discussion: """
        MESSAGE is sent as JSON when it parses as JSON (an object, an array, a number, true, false, \
        null or a quoted string) and as a JSON string otherwise; --string always sends a string. \
        Without MESSAGE the whole of standard input is one message; with --lines each non-empty \
        line is a message of its own.

        Examples:
          pubnode-cli publish chat hello
          pubnode-cli publish chat '{"text":"hi"}' --meta '{"lang":"en"}'
          pubnode-cli publish chat 42 --string          # sends "42", not 42
          pubnode-cli publish audit '{"id":7}' --no-store
          pubnode-cli publish chat "$(cat big.json)" --post
          echo '{"text":"from a pipe"}' | pubnode-cli publish chat
          tail -f app.log | pubnode-cli publish logs --lines
          pubnode-cli publish secret '{"pin":1234}' --cipher-key myCipherKey
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// Message encryption.
    @OptionGroup(title: "Encryption") public var crypto: CryptoOptions

    /// The channel to publish to.
    @Argument(help: "The channel.") public var channel: String

    /// The message; standard input when absent.
    @Argument(help: "The message (read from standard input when omitted).") public var message: String?

    /// Publish each line of standard input.
    @Flag(help: "Publish each line of standard input as a separate message.") public var lines = false

    /// JSON sent as `meta`.
    @Option(help: ArgumentHelp("JSON delivered with the message as meta.", valueName: "json")) public var meta: String?

    /// Keep the message out of history.
    @Flag(name: .customLong("no-store"), help: "Do not store the message in history.") public var noStore = false

    /// Hours history keeps the message.
    @Option(help: ArgumentHelp("Hours history keeps the message (0: forever).", valueName: "hours")) public var ttl: Int?

    /// Send a gzip-compressed POST body.
    @Flag(help: "Send the message as a gzip-compressed POST body instead of in the URL.") public var post = false

    /// The custom message type.
    @Option(name: .customLong("type"), help: ArgumentHelp("A custom message type label.", valueName: "type"))
    public var customMessageType: String?

    /// Send the text as a string even when it is valid JSON.
    @Flag(help: "Send the message as a JSON string even if it parses as JSON.") public var string = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the combination of arguments.
    public func validate() throws {
        if lines && message != nil { throw ValidationError("give either MESSAGE or --lines, not both") }
        if let ttl, ttl < 0 { throw ValidationError("--ttl must be 0 or more") }
        if let meta { _ = try MessageInput.json(meta, option: "--meta") }
    }

    /// Publishes and prints the timetoken of each message.
    public func run() async throws {
        let configuration = try global.configuration(crypto: crypto)
        let client = PubNodeClient(configuration: configuration)
        let meta = try meta.map { try MessageInput.json($0, option: "--meta") }
        let send = { (payload: JSONValue) async throws(PubNodeClientError) -> UInt64 in
            try await client.publish(channel: channel, message: payload, meta: meta, shouldStore: noStore ? false : nil,
                                     storeTTL: ttl, shouldCompress: post, customMessageType: customMessageType)
        }
        guard lines else {
            let payload = try MessageInput.single(argument: message, asString: string)
            let timetoken = try await reporting(configuration.origin) { () async throws(PubNodeClientError) in try await send(payload) }
            PublishOutput.print(channel: channel, timetoken: timetoken, json: global.json)
            return
        }
        var failed = 0
        for await line in MessageInput.lines() {
            do {
                let timetoken = try await send(MessageInput.payload(line, asString: string))
                PublishOutput.print(channel: channel, timetoken: timetoken, json: global.json)
            } catch {
                failed += 1
                Console.standardError.write("error: " + CLIError(error, origin: configuration.origin).message)
            }
        }
        if failed > 0 { throw CLIError("\(failed) message\(failed == 1 ? "" : "s") not published") }
    }
}

/// What publish, signal and fire print.
enum PublishOutput {
    /// The timetoken alone, or `{"channel":…,"timetoken":"…"}` with `--json`.
    static func print(channel: String, timetoken: UInt64, json: Bool) {
        if json {
            let object: JSONValue = ["channel": .string(channel), "timetoken": .string(String(timetoken))]
            Console.standardOutput.write(object.jsonString)
        } else {
            Console.standardOutput.write(String(timetoken))
        }
    }
}
