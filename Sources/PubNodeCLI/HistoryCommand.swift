import ArgumentParser
import PubNodeClient

/// `pubnode-cli history`: fetch (the default), delete and count stored messages.
public struct HistoryCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands; `fetch` runs when none is named.
    public static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Fetch, count or delete stored messages.",
        discussion: """
        `history CHANNEL...` is short for `history fetch CHANNEL...`.

        Examples:
          pubnode-cli history chat
          pubnode-cli history chat news --count 5 --meta
          pubnode-cli history count chat --since 17952634067723888
          pubnode-cli history delete chat
        """,
        subcommands: [HistoryFetchCommand.self, HistoryDeleteCommand.self, HistoryCountCommand.self],
        defaultSubcommand: HistoryFetchCommand.self)

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// `pubnode-cli history fetch CHANNEL...`: prints stored messages, oldest first.
public struct HistoryFetchCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Print the stored messages of channels, oldest first.",
        discussion: """
        Each line shows the timetoken, time, channel, publisher and payload; with --json each \
        message is one JSON object per line. --start is exclusive and --end inclusive: --start T \
        alone selects messages older than T, --end T alone T and newer. The page is the newest \
        --count messages of the selection.

        Examples:
          pubnode-cli history chat
          pubnode-cli history chat --count 10 --reverse
          pubnode-cli history chat news --start 17952634067723888 --json
          pubnode-cli history secret --cipher-key myCipherKey
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// Message decryption.
    @OptionGroup(title: "Encryption") public var crypto: CryptoOptions

    /// The channels.
    @Argument(help: "Channels.") public var channels: [String]

    /// Messages per channel.
    @Option(help: ArgumentHelp("Messages per channel (1-100 for one channel, 1-25 for several).", valueName: "N"))
    public var count: Int?

    /// Exclusive upper/lower boundary.
    @Option(help: ArgumentHelp("Exclusive boundary timetoken (alone: older than T).", valueName: "T")) public var start: UInt64?

    /// Inclusive boundary.
    @Option(help: ArgumentHelp("Inclusive boundary timetoken (alone: T and newer).", valueName: "T")) public var end: UInt64?

    /// Newest first.
    @Flag(help: "Print the newest message first.") public var reverse = false

    /// Include `meta`.
    @Flag(help: "Include each message's meta.") public var meta = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the channels and count.
    public func validate() throws {
        if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
    }

    /// Fetches and prints.
    public func run() async throws {
        let result = try await global.request(crypto: crypto) { client async throws(PubNodeClientError) in
            try await client.fetchMessageHistory(for: channels, max: count, start: start, end: end, includeMeta: meta,
                                                 includeCustomMessageType: true)
        }
        let formatter = global.formatter()
        var order: [String] = []
        for channel in channels where !order.contains(channel) { order.append(channel) }
        for channel in order {
            var messages = result[channel] ?? []
            if reverse { messages.reverse() }
            for message in messages {
                Console.standardOutput.write(global.json ? formatter.json(message, channel: channel)
                                                         : formatter.text(message, channel: channel))
            }
        }
    }
}

/// `pubnode-cli history delete CHANNEL`: deletes stored messages.
public struct HistoryDeleteCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete the stored messages of a channel (all, or a slice).",
        discussion: """
        Without bounds every stored message of the channel is deleted. To delete one message with \
        timetoken T: --end T --start T+1.

        Examples:
          pubnode-cli history delete chat
          pubnode-cli history delete chat --end 17952634067723888 --start 17952634067723889
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channel.
    @Argument(help: "The channel.") public var channel: String

    /// Exclusive boundary.
    @Option(help: ArgumentHelp("Exclusive boundary timetoken.", valueName: "T")) public var start: UInt64?

    /// Inclusive boundary.
    @Option(help: ArgumentHelp("Inclusive boundary timetoken.", valueName: "T")) public var end: UInt64?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Deletes and confirms on a terminal.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in
            try await client.deleteMessageHistory(from: channel, start: start, end: end)
        }
        if global.json {
            Console.standardOutput.write((["channel": .string(channel), "deleted": true] as JSONValue).jsonString)
        } else if Terminal.isTerminal(1) {
            Console.standardOutput.write("Deleted stored messages of \(channel).")
        }
    }
}

/// `pubnode-cli history count CHANNEL...`: counts stored messages newer than a timetoken.
public struct HistoryCountCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Count stored messages newer than a timetoken.",
        discussion: """
        Prints one `channel count` line per channel (a JSON object with --json).

        Examples:
          pubnode-cli history count chat news
          pubnode-cli history count chat --since 17952634067723888
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channels.
    @Argument(help: "Channels.") public var channels: [String]

    /// Count messages newer than this.
    @Option(help: ArgumentHelp("Count messages with a greater timetoken (default 0: all).", valueName: "T"))
    public var since: UInt64 = 0

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the channels.
    public func validate() throws {
        if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
    }

    /// Counts and prints.
    public func run() async throws {
        let counts = try await global.request { client async throws(PubNodeClientError) in
            try await client.messageCounts(channels: channels, since: since)
        }
        if global.json {
            Console.standardOutput.write(JSONValue.object(counts.mapValues { .int(Int64($0)) }).jsonString)
            return
        }
        var seen = Set<String>()
        for channel in channels where seen.insert(channel).inserted {
            Console.standardOutput.write("\(channel) \(counts[channel] ?? 0)")
        }
    }
}
