import ArgumentParser
import Foundation
import PubNodeClient

/// `pubnode-cli subscribe CHANNEL...`: prints messages as they arrive until Ctrl-C or `--count`.
public struct SubscribeCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print messages from channels and channel groups as they arrive.",
        discussion: """
        On a terminal each message is a line with its time, channel, publisher and payload; with \
        --json, or when standard output is not a terminal, each is one JSON object per line \
        (type, channel, publisher, timetoken, time, message, and meta when present). Ctrl-C \
        unsubscribes (the node sees you leave) and exits 0. Channels may be wildcards (news.*).

        Examples:
          pubnode-cli subscribe chat
          pubnode-cli subscribe chat news.* --group friends --presence
          pubnode-cli subscribe chat --count 1 --json | jq -r .message.text
          pubnode-cli subscribe chat --timetoken 17952634067723888   # catch up from a timetoken
          pubnode-cli subscribe chat --filter "meta.lang == 'en'"
          pubnode-cli subscribe secret --cipher-key myCipherKey
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// Message decryption.
    @OptionGroup(title: "Encryption") public var crypto: CryptoOptions

    /// The filter expression.
    @Option(help: ArgumentHelp("Only receive messages matching this filter expression, e.g. \"meta.lang == 'en'\".",
                               valueName: "expression"))
    public var filter: String?

    /// Channels to subscribe to.
    @Argument(help: "Channels (wildcards like news.* allowed).") public var channels: [String] = []

    /// Channel groups to subscribe to.
    @Option(name: .customLong("group"), help: ArgumentHelp("A channel group; repeat for several.", valueName: "group"))
    public var groups: [String] = []

    /// Also print presence events.
    @Flag(help: "Also print presence events (join, leave, timeout, state-change, interval).") public var presence = false

    /// Start from a timetoken.
    @Option(help: ArgumentHelp("Start from this timetoken, catching up on what the node still buffers.", valueName: "T"))
    public var timetoken: UInt64?

    /// Exit after this many events.
    @Option(help: ArgumentHelp("Exit after N messages (signals and presence events count too).", valueName: "N"))
    public var count: Int?

    /// Force text output even when standard output is not a terminal.
    @Flag(help: "Print text lines even when standard output is not a terminal.") public var text = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks that something is subscribed and the count is positive.
    public func validate() throws {
        if channels.isEmpty && groups.isEmpty { throw ValidationError("give at least one CHANNEL or --group") }
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
        if text && global.json { throw ValidationError("give either --json or --text, not both") }
        if let filter, filter.isEmpty { throw ValidationError("--filter must not be empty") }
    }

    /// Whether events are printed as JSON lines.
    var printsJSON: Bool { global.json || (!text && !Terminal.isTerminal(1)) }

    /// Subscribes, prints events and leaves.
    public func run() async throws {
        var configuration = try global.configuration(crypto: crypto)
        configuration.filterExpression = filter
        let client = PubNodeClient(configuration: configuration)
        let formatter = global.formatter()
        let session = SubscribeSession(client: client)
        await client.subscribe(to: channels, and: groups, at: timetoken, withPresence: presence)
        var printed = 0
        var failure: PubNodeClientError?
        var connected = false
        loop: for await input in session.inputs {
            let event: SubscriptionEvent
            switch input {
            case .interrupted: break loop
            case .event(let next): event = next
            }
            switch event {
            case .message(let message):
                Console.standardOutput.write(printsJSON ? formatter.json(message) : formatter.text(message))
                printed += 1
            case .signal(let signal):
                Console.standardOutput.write(printsJSON ? formatter.json(signal, signal: true)
                                                        : formatter.text(signal, signal: true))
                printed += 1
            case .presence(let change):
                Console.standardOutput.write(printsJSON ? formatter.json(change) : formatter.text(change))
            case .status(let change):
                switch change.current {
                case .connected:
                    if !connected && Terminal.isTerminal(2) {
                        let names = channels + groups.map { "group " + $0 }
                        Console.standardError.write(Style(enabled: !global.noColor && Terminal.colorEnabled(fileDescriptor: 2)).dim(
                            "Subscribed to \(names.joined(separator: ", ")) as \(configuration.userId); Ctrl-C to stop."))
                    } else if connected {
                        Console.standardError.write("reconnected")
                    }
                    connected = true
                case .reconnecting:
                    let error = change.error ?? .transport("connection lost")
                    guard connected else { failure = error; break loop }
                    Console.standardError.write("warning: " + CLIError(error, origin: configuration.origin).message
                                                + "; reconnecting")
                case .disconnectedUnexpectedly:
                    failure = change.error ?? .transport("disconnected")
                    break loop
                default:
                    break
                }
            case .error(let error):
                if case .crypto = error { Console.standardError.write("warning: " + error.description) }
            default:
                if let line = EventOutput.line(event, json: printsJSON) {
                    Console.standardOutput.write(line)
                    printed += 1
                }
            }
            if let count, printed >= count { break loop }
            // The reader went away (`| head`): leave and stop quietly.
            if Console.standardOutput.isClosed { break loop }
        }
        session.stop()
        // A leave is harmless when the subscribe had not got through yet, and needed when it had
        // reached the node without this process seeing the answer.
        await client.unsubscribeAll()
        if let failure { throw CLIError(failure, origin: configuration.origin) }
    }
}
