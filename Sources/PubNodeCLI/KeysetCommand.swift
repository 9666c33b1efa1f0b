import ArgumentParser
import Foundation
import PubNodeClient

/// `pubnode-cli keyset create|list|rotate|disable|enable|delete`: the node's keysets (tenants).
public struct KeysetCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "keyset",
        abstract: "Create and manage the node's keysets through its admin API.",
        discussion: """
        Every subcommand needs the node's admin token (--admin-token or PUBNODE_ADMIN_TOKEN). The \
        secret key is shown only by create and rotate.

        Examples:
          pubnode-cli keyset create --access-manager --publishes-per-second 50
          pubnode-cli keyset list --json
          pubnode-cli keyset rotate sub-c-…
          pubnode-cli keyset disable sub-c-…
          pubnode-cli keyset delete sub-c-…
        """,
        subcommands: [KeysetCreateCommand.self, KeysetListCommand.self, KeysetRotateCommand.self,
                      KeysetDisableCommand.self, KeysetEnableCommand.self, KeysetDeleteCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// The admin token option every keyset subcommand takes.
public struct AdminOptions: ParsableArguments {
    /// The node's admin token.
    @Option(name: .customLong("admin-token"), help: ArgumentHelp("The node's admin token (env PUBNODE_ADMIN_TOKEN).",
                                                                   valueName: "token"))
    public var adminToken: String?

    /// Creates the options (ArgumentParser fills them in).
    public init() {}

    /// The flag, else `PUBNODE_ADMIN_TOKEN`; a usage error when neither is set.
    public func token(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let adminToken, !adminToken.isEmpty { return adminToken }
        if let value = environment["PUBNODE_ADMIN_TOKEN"], !value.isEmpty { return value }
        throw CLIError("give the admin token with --admin-token or PUBNODE_ADMIN_TOKEN", isUsage: true)
    }
}

/// How keysets are printed.
enum KeysetOutput {
    /// One keyset, one `name value` line per field (JSON with `--json`).
    static func text(_ keyset: Keyset) -> String {
        var lines = [("subscribeKey", keyset.subscribeKey), ("publishKey", keyset.publishKey)]
        if let secret = keyset.secretKey { lines.append(("secretKey", secret)) }
        lines += [("accessManager", String(keyset.accessManager)), ("disabled", String(keyset.disabled)),
                  ("origin", keyset.origin), ("rateLimits", limits(keyset.rateLimits)),
                  ("counters", "admitted \(keyset.admitted), refused \(keyset.refused)")]
        return lines.map { $0.0.padding(toLength: 14, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }

    /// A keyset as one line of `keyset list`.
    static func line(_ keyset: Keyset) -> String {
        [keyset.subscribeKey, keyset.publishKey, keyset.accessManager ? "access-manager" : "open",
         keyset.disabled ? "disabled" : "enabled", keyset.origin, limits(keyset.rateLimits)].joined(separator: "  ")
    }

    static func limits(_ limits: KeysetRateLimits?) -> String {
        var parts: [String] = []
        if let value = limits?.publishesPerSecond { parts.append("\(value) publishes/s") }
        if let value = limits?.requestsPerSecond { parts.append("\(value) requests/s") }
        return parts.isEmpty ? "unlimited" : parts.joined(separator: ", ")
    }

    static func print(_ keyset: Keyset, global: GlobalOptions) {
        Console.standardOutput.write(global.json ? keyset.json.jsonString : text(keyset))
    }
}

/// `pubnode-cli keyset create`.
public struct KeysetCreateCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "create",
                                                           abstract: "Create a keyset and print its keys.",
        discussion: "Example:\n  pubnode-cli keyset create --access-manager --requests-per-second 100 --admin-token \"$ADMIN\"")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions
    /// Whether Access Manager checks the keyset's requests.
    @Flag(name: .customLong("access-manager"), help: "Require tokens or signatures on its requests.")
    public var accessManager = false
    /// Whether App Context changes are announced as events.
    @Flag(name: .customLong("app-context-events"), help: "Announce App Context changes to subscribers (e: 2 events).")
    public var appContextEvents = false
    /// Publish rate limit.
    @Option(name: .customLong("publishes-per-second"), help: "Publishes admitted per second.") public var publishesPerSecond: Int?
    /// Request rate limit.
    @Option(name: .customLong("requests-per-second"), help: "Requests admitted per second.") public var requestsPerSecond: Int?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Creates the keyset and prints it.
    public func run() async throws {
        let token = try admin.token()
        let limits = publishesPerSecond == nil && requestsPerSecond == nil ? nil
            : KeysetRateLimits(publishesPerSecond: publishesPerSecond, requestsPerSecond: requestsPerSecond)
        let keyset = try await global.request { client async throws(PubNodeClientError) in
            try await client.createKeyset(adminToken: token, accessManager: accessManager, rateLimits: limits,
                                          appContextEvents: appContextEvents)
        }
        KeysetOutput.print(keyset, global: global)
    }
}

/// `pubnode-cli keyset list`.
public struct KeysetListCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "list", abstract: "List the node's keysets.",
        discussion: "Example:\n  PUBNODE_ADMIN_TOKEN=… pubnode-cli keyset list --json")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Lists them: one line each, or one JSON object per line with `--json`.
    public func run() async throws {
        let token = try admin.token()
        let keysets = try await global.request { client async throws(PubNodeClientError) in
            try await client.listKeysets(adminToken: token)
        }
        for keyset in keysets {
            Console.standardOutput.write(global.json ? keyset.json.jsonString : KeysetOutput.line(keyset))
        }
    }
}

/// The admin action a keyset subcommand that names one keyset takes.
enum KeysetAction {
    case rotate, disable, enable, delete

    func run(_ global: GlobalOptions, _ admin: AdminOptions, _ subscribeKey: String) async throws {
        let token = try admin.token()
        if self == .delete {
            let deleted = try await global.request { client async throws(PubNodeClientError) in
                try await client.deleteKeyset(adminToken: token, subscribeKey: subscribeKey)
            }
            Console.standardOutput.write(global.json ? (["deleted": .string(deleted)] as JSONValue).jsonString
                                                     : "Deleted \(deleted).")
            return
        }
        let keyset = try await global.request { client async throws(PubNodeClientError) -> Keyset in
            switch self {
            case .rotate: return try await client.rotateSecretKey(adminToken: token, subscribeKey: subscribeKey)
            case .disable: return try await client.disableKeyset(adminToken: token, subscribeKey: subscribeKey)
            default: return try await client.enableKeyset(adminToken: token, subscribeKey: subscribeKey)
            }
        }
        KeysetOutput.print(keyset, global: global)
    }
}

/// `pubnode-cli keyset rotate SUB_KEY`.
public struct KeysetRotateCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(
        commandName: "rotate", abstract: "Give a keyset a new secret key and print it.",
        discussion: "Example:\n  pubnode-cli keyset rotate sub-c-… --admin-token \"$ADMIN\"")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions
    /// The keyset.
    @Argument(help: "The keyset's subscribe key.") public var subscribeKey: String
    /// Creates the command (ArgumentParser fills it in).
    public init() {}
    /// Rotates the secret key.
    public func run() async throws { try await KeysetAction.rotate.run(global, admin, subscribeKey) }
}

/// `pubnode-cli keyset disable SUB_KEY`.
public struct KeysetDisableCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Disable a keyset: its requests are refused.",
        discussion: "Example:\n  pubnode-cli keyset disable sub-c-… --admin-token \"$ADMIN\"")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions
    /// The keyset.
    @Argument(help: "The keyset's subscribe key.") public var subscribeKey: String
    /// Creates the command (ArgumentParser fills it in).
    public init() {}
    /// Disables it.
    public func run() async throws { try await KeysetAction.disable.run(global, admin, subscribeKey) }
}

/// `pubnode-cli keyset enable SUB_KEY`.
public struct KeysetEnableCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "enable", abstract: "Enable a disabled keyset.",
        discussion: "Example:\n  pubnode-cli keyset enable sub-c-… --admin-token \"$ADMIN\"")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions
    /// The keyset.
    @Argument(help: "The keyset's subscribe key.") public var subscribeKey: String
    /// Creates the command (ArgumentParser fills it in).
    public init() {}
    /// Enables it.
    public func run() async throws { try await KeysetAction.enable.run(global, admin, subscribeKey) }
}

/// `pubnode-cli keyset delete SUB_KEY`.
public struct KeysetDeleteCommand: AsyncParsableCommand {
    /// The command's name and abstract.
    public static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a keyset.",
        discussion: "Example:\n  pubnode-cli keyset delete sub-c-… --admin-token \"$ADMIN\"")
    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The admin token.
    @OptionGroup public var admin: AdminOptions
    /// The keyset.
    @Argument(help: "The keyset's subscribe key.") public var subscribeKey: String
    /// Creates the command (ArgumentParser fills it in).
    public init() {}
    /// Deletes it.
    public func run() async throws { try await KeysetAction.delete.run(global, admin, subscribeKey) }
}
