import ArgumentParser
import PubNodeClient

/// `pubnode-cli state get|set`: presence state of a user on channels.
public struct StateCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Get or set presence state (a JSON object per user and channel).",
        discussion: """
        Examples:
          pubnode-cli state set chat --uuid alice '{"mood":"happy"}'
          pubnode-cli state get chat --user alice
        """,
        subcommands: [StateGetCommand.self, StateSetCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// `pubnode-cli state get CHANNEL...`: prints a user's state on each channel.
public struct StateGetCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a user's presence state on channels.",
        discussion: """
        Prints `channel state-json` lines (one JSON object mapping channels to states with --json).

        Examples:
          pubnode-cli state get chat --user alice
          pubnode-cli state get chat news --group friends --uuid alice
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channels.
    @Argument(help: "Channels.") public var channels: [String] = []

    /// Channel groups.
    @Option(name: .customLong("group"), help: ArgumentHelp("A channel group; repeat for several.", valueName: "group"))
    public var groups: [String] = []

    /// Whose state.
    @Option(help: ArgumentHelp("Whose state (default: --uuid).", valueName: "id")) public var user: String?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks that something is named.
    public func validate() throws {
        if channels.isEmpty && groups.isEmpty { throw ValidationError("give at least one CHANNEL or --group") }
    }

    /// Asks the node and prints.
    public func run() async throws {
        let states = try await global.request { client async throws(PubNodeClientError) in
            try await client.getPresenceState(for: user, on: channels, and: groups)
        }
        if global.json {
            Console.standardOutput.write(JSONValue.object(states).jsonString)
            return
        }
        let style = global.formatter().style
        for channel in states.keys.sorted() {
            Console.standardOutput.write(style.cyan(channel) + "  " + (states[channel] ?? .object([:])).jsonString)
        }
    }
}

/// `pubnode-cli state set CHANNEL... STATE`: sets this user's state.
public struct StateSetCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set your presence state (--uuid) on channels.",
        discussion: """
        STATE is a JSON object; the last argument. Prints the state as the node stored it.

        Examples:
          pubnode-cli state set chat --uuid alice '{"mood":"happy"}'
          pubnode-cli state set chat news --uuid alice '{"typing":true}'
          pubnode-cli state set --group friends --uuid alice '{"away":true}'
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// Channels, then the state.
    @Argument(help: ArgumentHelp("Channels, then the state as a JSON object.", valueName: "channel... state"))
    public var arguments: [String] = []

    /// Channel groups.
    @Option(name: .customLong("group"), help: ArgumentHelp("A channel group; repeat for several.", valueName: "group"))
    public var groups: [String] = []

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// The channels (every argument but the last).
    var channels: [String] { Array(arguments.dropLast()) }

    /// Checks that a state and a channel or group are given.
    public func validate() throws {
        guard let state = arguments.last else { throw ValidationError("give CHANNEL... and a STATE JSON object") }
        _ = try MessageInput.object(state, option: "STATE")
        if channels.isEmpty && groups.isEmpty { throw ValidationError("give at least one CHANNEL or --group before STATE") }
    }

    /// Sets the state and prints it.
    public func run() async throws {
        let configuration = try global.configuration()
        let client = PubNodeClient(configuration: configuration)
        let state = try MessageInput.object(arguments.last ?? "{}", option: "STATE")
        let stored = try await reporting(configuration.origin) { () async throws(PubNodeClientError) in
            try await client.setPresence(state: state, on: channels, and: groups)
        }
        Console.standardOutput.write(stored.jsonString)
    }
}
