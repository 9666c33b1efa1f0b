import ArgumentParser
import Foundation
import PubNodeClient

/// `pubnode-cli token grant|revoke|parse`: Access Manager v3 tokens.
public struct TokenCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Grant, revoke and read Access Manager tokens.",
        discussion: """
        grant and revoke need the keyset's secret key (--secret-key or PUBNODE_SECRET_KEY); parse \
        works offline. Permissions are letters: r read, w write, m manage, d delete, c create, \
        g get, u update, j join.

        Examples:
          pubnode-cli --secret-key sec-c-… token grant --ttl 60 --authorized-uuid alice \\
            --channel 'chat=rw' --channel-pattern '^room-.*$=r' --meta '{"role":"member"}'
          pubnode-cli subscribe chat --auth "$TOKEN"
          pubnode-cli token parse "$TOKEN"
          pubnode-cli --secret-key sec-c-… token revoke "$TOKEN"
        """,
        subcommands: [TokenGrantCommand.self, TokenRevokeCommand.self, TokenParseCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// `pubnode-cli token grant`: prints a new token.
public struct TokenGrantCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "grant", abstract: "Grant a token and print it (needs --secret-key).",
        discussion: "Example:\n  pubnode-cli token grant --ttl 15 --channel 'chat=rw' --group 'friends=r'")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// Minutes the token is valid.
    @Option(help: ArgumentHelp("Minutes the token is valid (1–43200).", valueName: "minutes")) public var ttl: Int
    /// The only user id that may use the token.
    @Option(name: .customLong("authorized-uuid"), help: ArgumentHelp("Only this user id may use the token.",
                                                                       valueName: "id"))
    public var authorizedUUID: String?
    /// Channel permissions, `name=letters`.
    @Option(help: ArgumentHelp("Channel permissions (repeatable).", valueName: "name=rwmdcguj")) public var channel: [String] = []
    /// Channel group permissions.
    @Option(help: ArgumentHelp("Channel group permissions (repeatable).", valueName: "name=rwmdcguj")) public var group: [String] = []
    /// User id permissions.
    @Option(help: ArgumentHelp("User id (uuid) permissions (repeatable).", valueName: "id=rwmdcguj")) public var user: [String] = []
    /// Channel pattern permissions.
    @Option(name: .customLong("channel-pattern"), help: ArgumentHelp("Permissions on channels matching a regular expression.",
                                                                       valueName: "regex=rwmdcguj"))
    public var channelPattern: [String] = []
    /// Group pattern permissions.
    @Option(name: .customLong("group-pattern"), help: ArgumentHelp("Permissions on groups matching a regular expression.",
                                                                     valueName: "regex=rwmdcguj"))
    public var groupPattern: [String] = []
    /// User id pattern permissions.
    @Option(name: .customLong("user-pattern"), help: ArgumentHelp("Permissions on user ids matching a regular expression.",
                                                                    valueName: "regex=rwmdcguj"))
    public var userPattern: [String] = []
    /// JSON object stored in the token.
    @Option(help: ArgumentHelp("A JSON object stored in the token.", valueName: "json")) public var meta: String?

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Checks the ttl, the permissions and the meta.
    public func validate() throws {
        if !(1...43_200).contains(ttl) { throw ValidationError("--ttl must be 1 to 43200 minutes") }
        let (resources, patterns) = try grants()
        if resources.isEmpty && patterns.isEmpty {
            throw ValidationError("give at least one --channel, --group, --user or pattern")
        }
        _ = try metaObject()
    }

    /// The resources and patterns the flags name.
    func grants() throws -> (resources: TokenResources, patterns: TokenResources) {
        (TokenResources(channels: try Self.permissions(channel, "--channel"), groups: try Self.permissions(group, "--group"),
                        uuids: try Self.permissions(user, "--user")),
         TokenResources(channels: try Self.permissions(channelPattern, "--channel-pattern"),
                        groups: try Self.permissions(groupPattern, "--group-pattern"),
                        uuids: try Self.permissions(userPattern, "--user-pattern")))
    }

    /// `--meta` as a JSON object.
    func metaObject() throws -> [String: JSONValue]? {
        guard let meta else { return nil }
        guard let object = (try? JSONValue(jsonData: Data(meta.utf8)))?.objectValue else {
            throw ValidationError("--meta must be a JSON object")
        }
        return object
    }

    /// `name=letters` items as permissions; the name is everything before the last `=`.
    static func permissions(_ items: [String], _ flag: String) throws -> [String: TokenPermissions] {
        var result: [String: TokenPermissions] = [:]
        for item in items {
            guard let split = item.lastIndex(of: "="), split != item.startIndex,
                  let bits = TokenPermissions(letters: String(item[item.index(after: split)...])), !bits.isEmpty else {
                throw ValidationError("\(flag) takes name=letters with letters from rwmdcguj (got '\(item)')")
            }
            result[String(item[..<split]), default: []].formUnion(bits)
        }
        return result
    }

    /// Grants and prints the token.
    public func run() async throws {
        let (resources, patterns) = try grants()
        let meta = try metaObject()
        let token = try await global.request { client async throws(PubNodeClientError) in
            try await client.grantToken(ttl: ttl, authorizedUUID: authorizedUUID, resources: resources,
                                        patterns: patterns, meta: meta)
        }
        Console.standardOutput.write(global.json ? (["token": .string(token)] as JSONValue).jsonString : token)
    }
}

/// `pubnode-cli token revoke TOKEN`.
public struct TokenRevokeCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "revoke", abstract: "Revoke a token (needs --secret-key).",
        discussion: "Example:\n  pubnode-cli --secret-key sec-c-… token revoke \"$TOKEN\"")

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The token.
    @Argument(help: "The token to revoke.") public var token: String

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Revokes the token.
    public func run() async throws {
        try await global.request { client async throws(PubNodeClientError) in try await client.revokeToken(token) }
        GroupOutput.done("Revoked.", global: global)
    }
}

/// `pubnode-cli token parse TOKEN`: the token's contents as JSON, offline.
public struct TokenParseCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Print what a token grants, as JSON (offline; the signature is not checked).",
        discussion: "Example:\n  pubnode-cli token parse \"$TOKEN\" | jq .resources")

    /// Connection and output options (accepted like every command's; the output is always JSON).
    @OptionGroup(title: "Global options") public var global: GlobalOptions
    /// The token.
    @Argument(help: "The token to read.") public var token: String

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Parses and prints.
    public func run() async throws {
        Console.standardOutput.write(try Self.render(token))
    }

    /// The JSON printed for `token`.
    static func render(_ token: String) throws -> String {
        do {
            return try PubNodeClient.parse(token: token).json.jsonString
        } catch {
            throw CLIError("not a valid access token", isUsage: true)
        }
    }
}
