import ArgumentParser
import PubNodeClient

/// `pubnode-cli group add|remove|list|delete`: channel groups.
public struct GroupCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Manage channel groups: named sets of channels one subscribe can cover.",
        discussion: """
        Examples:
          pubnode-cli group add friends chat news
          pubnode-cli group list friends
          pubnode-cli subscribe --group friends
          pubnode-cli group remove friends news
          pubnode-cli group delete friends
        """,
        subcommands: [GroupAddCommand.self, GroupRemoveCommand.self, GroupListCommand.self, GroupDeleteCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// `pubnode-cli group add GROUP CHANNEL...`.
public struct GroupAddCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add channels to a group (creating it).",
        discussion: "Example:\n  pubnode-cli group add friends chat news")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The group.
    @Argument(help: "The channel group.") public var group: String
    /// The channels.
    @Argument(help: "Channels to add.") public var channels: [String]

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the channels.
    public func validate() throws {
        if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
    }

    /// Adds the channels.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in
            try await client.add(channels: channels, to: group)
        }
        GroupOutput.done("Added \(channels.joined(separator: ", ")) to \(group).", global: global)
    }
}

/// `pubnode-cli group remove GROUP CHANNEL...`.
public struct GroupRemoveCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove channels from a group.",
        discussion: "Example:\n  pubnode-cli group remove friends news")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The group.
    @Argument(help: "The channel group.") public var group: String
    /// The channels.
    @Argument(help: "Channels to remove.") public var channels: [String]

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the channels.
    public func validate() throws {
        if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
    }

    /// Removes the channels.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in
            try await client.remove(channels: channels, from: group)
        }
        GroupOutput.done("Removed \(channels.joined(separator: ", ")) from \(group).", global: global)
    }
}

/// `pubnode-cli group list [GROUP]`.
public struct GroupListCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a group's channels, or every group of the keyset.",
        discussion: """
        Prints one name per line (a JSON array with --json).

        Examples:
          pubnode-cli group list            # every group
          pubnode-cli group list friends    # its channels
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The group, if any.
    @Argument(help: "The channel group (none: list the groups).") public var group: String?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Lists and prints.
    public func run() async throws {
        let names = try await global.request { client async throws(PubNodeClientError) in
            if let group { return try await client.listChannels(for: group) }
            return try await client.listChannelGroups()
        }
        if global.json {
            Console.standardOutput.write(JSONValue.array(names.sorted().map(JSONValue.string)).jsonString)
        } else {
            for name in names.sorted() { Console.standardOutput.write(name) }
        }
    }
}

/// `pubnode-cli group delete GROUP`.
public struct GroupDeleteCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a channel group.",
        discussion: "Example:\n  pubnode-cli group delete friends")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The group.
    @Argument(help: "The channel group.") public var group: String

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Deletes the group.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in
            try await client.remove(channelGroup: group)
        }
        GroupOutput.done("Deleted \(group).", global: global)
    }
}

/// What the group changes print: a confirmation on a terminal, `{"ok":true}` with `--json`.
enum GroupOutput {
    /// Prints `text` on a terminal, `{"ok":true}` with `--json`, nothing otherwise.
    static func done(_ text: String, global: GlobalOptions) {
        if global.json {
            Console.standardOutput.write((["ok": true] as JSONValue).jsonString)
        } else if Terminal.isTerminal(1) {
            Console.standardOutput.write(text)
        }
    }
}
