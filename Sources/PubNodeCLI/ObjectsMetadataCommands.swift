import ArgumentParser
import PubNodeClient

/// `pubnode-cli objects uuid get|set|remove|list`.
public struct ObjectsUUIDCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "uuid", abstract: "User metadata.",
        discussion: "Examples:\n  pubnode-cli objects uuid set alice --name Alice\n  pubnode-cli objects uuid get alice",
        subcommands: [Get.self, Set.self, Remove.self, List.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// `objects uuid get [ID]` (your own user id without ID).
    public struct Get: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a user's metadata.",
            discussion: "Example:\n  pubnode-cli objects uuid get alice")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The user id.
        @Argument(help: "The user id (default: --uuid).") public var id: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Fetches and prints.
        public func run() async throws {
            let metadata = try await global.request { client async throws(PubNodeClientError) in
                try await client.fetchUUIDMetadata(id)
            }
            Console.standardOutput.write(ObjectsOutput.json(metadata).jsonString)
        }
    }

    /// `objects uuid set ID [--name …] …`.
    public struct Set: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "set", abstract: "Set fields of a user's metadata.",
            discussion: "Example:\n  pubnode-cli objects uuid set alice --name Alice --custom '{\"age\":7}'")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The user id.
        @Argument(help: "The user id.") public var id: String
        /// Display name.
        @Option(help: "Display name.") public var name: String?
        /// E-mail.
        @Option(help: "E-mail address.") public var email: String?
        /// External id.
        @Option(name: .customLong("external-id"), help: "Identifier in another system.") public var externalId: String?
        /// Profile URL.
        @Option(name: .customLong("profile-url"), help: "Profile picture URL.") public var profileURL: String?
        /// Type.
        @Option(help: "Type label.") public var type: String?
        /// Status.
        @Option(help: "Status label.") public var status: String?
        /// Custom fields.
        @Option(help: ArgumentHelp("Custom fields as a JSON object.", valueName: "json")) public var custom: String?
        /// Entity tag.
        @Option(name: .customLong("if-match"), help: ArgumentHelp("Only if the stored eTag is this.", valueName: "etag"))
        public var ifMatch: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Sets and prints the stored metadata.
        public func run() async throws {
            let metadata = UUIDMetadata(id: id, name: name, externalId: externalId, profileURL: profileURL, email: email,
                                        type: type, status: status, custom: try ObjectsPrinter.custom(custom))
            let stored = try await global.request { client async throws(PubNodeClientError) in
                try await client.setUUIDMetadata(metadata, ifMatchesEtag: ifMatch)
            }
            Console.standardOutput.write(ObjectsOutput.json(stored).jsonString)
        }
    }

    /// `objects uuid remove [ID]`.
    public struct Remove: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a user's metadata.",
            discussion: "Example:\n  pubnode-cli objects uuid remove alice")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The user id.
        @Argument(help: "The user id (default: --uuid).") public var id: String?
        /// Entity tag.
        @Option(name: .customLong("if-match"), help: ArgumentHelp("Only if the stored eTag is this.", valueName: "etag"))
        public var ifMatch: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Removes.
        public func run() async throws {
            let removed = try await global.request { client async throws(PubNodeClientError) in
                try await client.removeUUIDMetadata(id, ifMatchesEtag: ifMatch)
            }
            ObjectsPrinter.removed("uuid", removed)
        }
    }

    /// `objects uuid list`.
    public struct List: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List users' metadata.",
            discussion: "Example:\n  pubnode-cli objects uuid list --limit 10 --count")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// List options.
        @OptionGroup(title: "List options") public var list: ObjectsListFlags
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Lists.
        public func run() async throws {
            let options = try list.options()
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.allUUIDMetadata(options)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }
}

/// `pubnode-cli objects channel get|set|remove|list`.
public struct ObjectsChannelCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "channel", abstract: "Channel metadata.",
        discussion: "Examples:\n  pubnode-cli objects channel set chat --name Chat\n  pubnode-cli objects channel get chat",
        subcommands: [Get.self, Set.self, Remove.self, List.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// `objects channel get CHANNEL`.
    public struct Get: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a channel's metadata.",
            discussion: "Example:\n  pubnode-cli objects channel get chat")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Fetches and prints.
        public func run() async throws {
            let metadata = try await global.request { client async throws(PubNodeClientError) in
                try await client.fetchChannelMetadata(channel)
            }
            Console.standardOutput.write(ObjectsOutput.json(metadata).jsonString)
        }
    }

    /// `objects channel set CHANNEL [--name …] …`.
    public struct Set: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "set", abstract: "Set fields of a channel's metadata.",
            discussion: "Example:\n  pubnode-cli objects channel set chat --name Chat --description 'General talk'")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// Display name.
        @Option(help: "Display name.") public var name: String?
        /// Description.
        @Option(help: "Description.") public var description: String?
        /// Type.
        @Option(help: "Type label.") public var type: String?
        /// Status.
        @Option(help: "Status label.") public var status: String?
        /// Custom fields.
        @Option(help: ArgumentHelp("Custom fields as a JSON object.", valueName: "json")) public var custom: String?
        /// Entity tag.
        @Option(name: .customLong("if-match"), help: ArgumentHelp("Only if the stored eTag is this.", valueName: "etag"))
        public var ifMatch: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Sets and prints the stored metadata.
        public func run() async throws {
            let metadata = ChannelMetadata(id: channel, name: name, channelDescription: description, type: type,
                                           status: status, custom: try ObjectsPrinter.custom(custom))
            let stored = try await global.request { client async throws(PubNodeClientError) in
                try await client.setChannelMetadata(metadata, ifMatchesEtag: ifMatch)
            }
            Console.standardOutput.write(ObjectsOutput.json(stored).jsonString)
        }
    }

    /// `objects channel remove CHANNEL`.
    public struct Remove: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a channel's metadata.",
            discussion: "Example:\n  pubnode-cli objects channel remove chat")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// The channel.
        @Argument(help: "The channel.") public var channel: String
        /// Entity tag.
        @Option(name: .customLong("if-match"), help: ArgumentHelp("Only if the stored eTag is this.", valueName: "etag"))
        public var ifMatch: String?
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Removes.
        public func run() async throws {
            let removed = try await global.request { client async throws(PubNodeClientError) in
                try await client.removeChannelMetadata(channel, ifMatchesEtag: ifMatch)
            }
            ObjectsPrinter.removed("channel", removed)
        }
    }

    /// `objects channel list`.
    public struct List: AsyncParsableCommand {
        /// The command's name and abstract.
        public static let configuration = CommandConfiguration(commandName: "list", abstract: "List channels' metadata.",
            discussion: "Example:\n  pubnode-cli objects channel list --sort updated:desc --filter \"name LIKE 'c*'\"")
        /// Connection and output options.
        @OptionGroup(title: "Global options") public var global: GlobalOptions
        /// List options.
        @OptionGroup(title: "List options") public var list: ObjectsListFlags
        /// Creates the command (ArgumentParser fills it in).
        public init() {}
        /// Lists.
        public func run() async throws {
            let options = try list.options()
            let page = try await global.request { client async throws(PubNodeClientError) in
                try await client.allChannelMetadata(options)
            }
            ObjectsPrinter.print(page, ObjectsOutput.json)
        }
    }
}
