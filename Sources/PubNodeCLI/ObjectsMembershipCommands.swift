import ArgumentParser
import PubNodeClient

/// `pubnode-cli objects memberships list|set|remove`: the channels a user is a member of.
public struct ObjectsMembershipsCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "memberships", abstract: "The channels a user is a member of.",
        discussion: "Examples:\n  pubnode-cli objects memberships set alice chat news\n  pubnode-cli objects memberships list alice",
        subcommands: [List.self, Set.self, Remove.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// `objects memberships list [UUID]`.
    public struct List: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's memberships.",
            discussion: "Example:\n  pubnode-cli objects memberships list alice --include channel")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// List options.
        @OptionGroup(title: "List options") public var list: ObjectsListFlags
        /// The user id.
        @Argument(help: "The user id (default: --uuid).") public var uuid: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Lists.
        public func run() async throws {
            let options = try list.options()
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.fetchMemberships(uuid: uuid, options)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }

    /// `objects memberships set UUID CHANNEL... [--custom …]`.
    public struct Set: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "set", abstract: "Add or update a user's memberships.",
            discussion: "Example:\n  pubnode-cli objects memberships set alice chat news --custom '{\"role\":\"mod\"}'")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The user id.
        @Argument(help: "The user id.") public var uuid: String
        /// The channels.
        @Argument(help: "Channels.") public var channels: [String]
        /// Custom fields of each membership.
        @Option(help: ArgumentHelp("Custom fields of each membership, a JSON object.", valueName: "json")) public var custom: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Checks the channels.
        public func validate() throws {
            if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
        }
        /// Sets and prints the memberships.
        public func run() async throws {
            let custom = try ObjectsPrinter.custom(custom)
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.setMemberships(uuid: uuid, channels: channels.map { Membership(uuid: uuid, channel: $0, custom: custom) })
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }

    /// `objects memberships remove UUID CHANNEL...`.
    public struct Remove: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a user's memberships.",
            discussion: "Example:\n  pubnode-cli objects memberships remove alice news")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The user id.
        @Argument(help: "The user id.") public var uuid: String
        /// The channels.
        @Argument(help: "Channels.") public var channels: [String]
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Checks the channels.
        public func validate() throws {
            if channels.isEmpty { throw ValidationError("give at least one CHANNEL") }
        }
        /// Removes and prints the remaining memberships.
        public func run() async throws {
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.removeMemberships(uuid: uuid, channels: channels)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }
}

/// `pubnode-cli objects members list|set|remove`: the users who are members of a channel.
public struct ObjectsMembersCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "members", abstract: "The members of a channel.",
        discussion: "Examples:\n  pubnode-cli objects members set chat alice bob\n  pubnode-cli objects members list chat",
        subcommands: [List.self, Set.self, Remove.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// `objects members list CHANNEL`.
    public struct List: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List a channel's members.",
            discussion: "Example:\n  pubnode-cli objects members list chat --include uuid --count")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// List options.
        @OptionGroup(title: "List options") public var list: ObjectsListFlags
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Lists.
        public func run() async throws {
            let options = try list.options()
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.fetchMembers(channel: channel, options)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }

    /// `objects members set CHANNEL UUID... [--custom …]`.
    public struct Set: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "set", abstract: "Add or update a channel's members.",
            discussion: "Example:\n  pubnode-cli objects members set chat alice bob")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// The user ids.
        @Argument(help: "User ids.") public var uuids: [String]
        /// Custom fields of each membership.
        @Option(help: ArgumentHelp("Custom fields of each membership, a JSON object.", valueName: "json")) public var custom: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Checks the user ids.
        public func validate() throws {
            if uuids.isEmpty { throw ValidationError("give at least one UUID") }
        }
        /// Sets and prints the members.
        public func run() async throws {
            let custom = try ObjectsPrinter.custom(custom)
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.setMembers(channel: channel, uuids: uuids.map { Membership(uuid: $0, channel: channel, custom: custom) })
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }

    /// `objects members remove CHANNEL UUID...`.
    public struct Remove: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove members of a channel.",
            discussion: "Example:\n  pubnode-cli objects members remove chat bob")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// The user ids.
        @Argument(help: "User ids.") public var uuids: [String]
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Checks the user ids.
        public func validate() throws {
            if uuids.isEmpty { throw ValidationError("give at least one UUID") }
        }
        /// Removes and prints the remaining members.
        public func run() async throws {
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.removeMembers(channel: channel, uuids: uuids)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }
}
