import ArgumentParser
import PubNodeClient

/// `pubnode-cli actions add|remove|list`: message actions (reactions, receipts) on stored messages.
public struct ActionsCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Add, remove and list message actions (reactions, receipts) on stored messages.",
        discussion: """
        Examples:
          pubnode-cli actions add chat 17952634067723888 reaction smiley_face
          pubnode-cli actions list chat --limit 10
          pubnode-cli actions remove chat 17952634067723888 17952634067800000
        """,
        subcommands: [ActionsAddCommand.self, ActionsRemoveCommand.self, ActionsListCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// `pubnode-cli actions add CHANNEL MESSAGE_TIMETOKEN TYPE VALUE`.
public struct ActionsAddCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add an action to a message and print the action's timetoken.",
        discussion: "Example:\n  pubnode-cli actions add chat 17952634067723888 reaction smiley_face")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The channel.
    @Argument(help: "The channel.") public var channel: String
    /// The message's timetoken.
    @Argument(help: "The timetoken of the message.") public var messageTimetoken: UInt64
    /// The action type.
    @Argument(help: "The action type, e.g. reaction.") public var type: String
    /// The action value.
    @Argument(help: "The action value, e.g. smiley_face.") public var value: String

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Adds and prints.
    public func run() async throws {
        let action = try await global.request { client async throws(PubNodeClientError) in
            try await client.addMessageAction(channel: channel, type: type, value: value, messageTimetoken: messageTimetoken)
        }
        Console.standardOutput.write(global.json ? JSONValue.object(EventOutput.fields(action)).jsonString
                                                 : String(action.actionTimetoken))
    }
}

/// `pubnode-cli actions remove CHANNEL MESSAGE_TIMETOKEN ACTION_TIMETOKEN`.
public struct ActionsRemoveCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an action from a message.",
        discussion: "Example:\n  pubnode-cli actions remove chat 17952634067723888 17952634067800000")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The channel.
    @Argument(help: "The channel.") public var channel: String
    /// The message's timetoken.
    @Argument(help: "The timetoken of the message.") public var messageTimetoken: UInt64
    /// The action's timetoken.
    @Argument(help: "The timetoken of the action.") public var actionTimetoken: UInt64

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Removes.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in
            try await client.removeMessageActions(channel: channel, message: messageTimetoken, action: actionTimetoken)
        }
        if global.json {
            Console.standardOutput.write((["channel": .string(channel), "removed": true] as JSONValue).jsonString)
        } else if Terminal.isTerminal(1) {
            Console.standardOutput.write("Removed action \(actionTimetoken).")
        }
    }
}

/// `pubnode-cli actions list CHANNEL`: one line per action, oldest first.
public struct ActionsListCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the actions of a channel, oldest first.",
        discussion: """
        Each line shows the action's timetoken, the message's timetoken, who added it, its type and \
        value. --start is exclusive (older than T), --end inclusive. When more actions remain, \
        the bounds of the next page are printed to standard error.

        Examples:
          pubnode-cli actions list chat
          pubnode-cli actions list chat --limit 5 --start 17952634067800000 --json
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The channel.
    @Argument(help: "The channel.") public var channel: String
    /// Exclusive boundary.
    @Option(help: ArgumentHelp("Only actions older than this timetoken.", valueName: "T")) public var start: UInt64?
    /// Inclusive boundary.
    @Option(help: ArgumentHelp("Only actions at or newer than this timetoken.", valueName: "T")) public var end: UInt64?
    /// Page size.
    @Option(help: ArgumentHelp("At most N actions.", valueName: "N")) public var limit: Int?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the limit.
    public func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    /// Lists.
    public func run() async throws {
        let page = try await global.request { client async throws(PubNodeClientError) in
            try await client.fetchMessageActions(channel: channel, page: MessageActionsBounds(start: start, end: end, limit: limit))
        }
        for action in page.actions {
            Console.standardOutput.write(global.json ? JSONValue.object(EventOutput.fields(action)).jsonString
                : "\(action.actionTimetoken) \(action.messageTimetoken) \(action.uuid) \(action.type) \(action.value)")
        }
        if let next = page.next, let start = next.start {
            Console.standardError.write("more: --start \(start)" + (next.end.map { " --end \($0)" } ?? ""))
        }
    }
}
