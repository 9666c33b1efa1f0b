import ArgumentParser
import PubNodeClient

/// `pubnode-cli objects`: App Context metadata of users and channels, memberships and members.
public struct ObjectsCommand: AsyncParsableCommand {
    /// The command's name, abstract and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "objects",
        abstract: "App Context: metadata of users (uuid) and channels, memberships and members.",
        discussion: """
        Results are printed as JSON, one object per line.

        Examples:
          pubnode-cli objects uuid set alice --name Alice --custom '{"age":7}'
          pubnode-cli objects uuid get alice
          pubnode-cli objects channel list --limit 10 --count
          pubnode-cli objects memberships set alice chat news
          pubnode-cli objects members list chat --include uuid
        """,
        subcommands: [ObjectsUUIDCommand.self, ObjectsChannelCommand.self, ObjectsMembershipsCommand.self,
                      ObjectsMembersCommand.self])

    /// Creates the command (ArgumentParser fills it in).
    public init() {}
}

/// Options of App Context lists.
public struct ObjectsListFlags: ParsableArguments {
    /// Items per page.
    @Option(help: ArgumentHelp("Items per page.", valueName: "N")) public var limit: Int?
    /// Filter expression.
    @Option(help: ArgumentHelp("Filter expression, e.g. \"name LIKE 'a*'\".", valueName: "expression"))
    public var filter: String?
    /// Sort keys.
    @Option(help: ArgumentHelp("Sort key such as name or updated:desc; repeat for several.", valueName: "key"))
    public var sort: [String] = []
    /// The next page's cursor.
    @Option(help: ArgumentHelp("Fetch the page after this cursor.", valueName: "cursor")) public var next: String?
    /// The previous page's cursor.
    @Option(help: ArgumentHelp("Fetch the page before this cursor.", valueName: "cursor")) public var prev: String?
    /// Include the total count.
    @Flag(help: "Include the total count.") public var count = false
    /// Extra fields.
    @Option(help: ArgumentHelp("Also include: channel, channel.custom, uuid or uuid.custom; repeat for several.",
                               valueName: "field"))
    public var include: [String] = []

    /// Creates the options (ArgumentParser fills them in).
    public init() {}

    /// Checks the values.
    public func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        if next != nil && prev != nil { throw ValidationError("give either --next or --prev, not both") }
        _ = try includes()
    }

    /// The included fields: custom, status and type, and those asked for.
    func includes() throws -> ObjectsInclude {
        var set = ObjectsInclude.standard
        for name in include {
            switch name {
            case "channel": set.insert(.channel)
            case "channel.custom": set.insert(.channelCustom)
            case "uuid": set.insert(.uuid)
            case "uuid.custom": set.insert(.uuidCustom)
            default: throw ValidationError("--include takes channel, channel.custom, uuid or uuid.custom (got '\(name)')")
            }
        }
        if count { set.insert(.totalCount) }
        return set
    }

    /// The client's list options.
    func options() throws -> ObjectsListOptions {
        let page: ObjectsPage? = next.map { .next($0) } ?? prev.map { .prev($0) }
        return ObjectsListOptions(include: try includes(), filter: filter, sort: sort, limit: limit, page: page)
    }
}

/// Printing App Context results.
enum ObjectsPrinter {
    /// Each item as a JSON line, then the page's total and cursors (when any) as one more line.
    static func print<Item>(_ list: ObjectsList<Item>, _ json: (Item) -> JSONValue) {
        for item in list.items { Console.standardOutput.write(json(item).jsonString) }
        var page: [String: JSONValue] = [:]
        page["totalCount"] = list.totalCount.map { .int(Int64($0)) }
        page["next"] = list.next.map(JSONValue.string)
        page["prev"] = list.prev.map(JSONValue.string)
        if !page.isEmpty { Console.standardError.write(JSONValue.object(page).jsonString) }
    }

    /// A confirmation of a removal.
    static func removed(_ kind: String, _ id: String) {
        Console.standardOutput.write((["removed": .string(kind), "id": .string(id)] as JSONValue).jsonString)
    }

    /// A JSON object given on the command line (`--custom`).
    static func custom(_ text: String?) throws -> JSONValue? {
        guard let text else { return nil }
        let value = try MessageInput.json(text, option: "--custom")
        guard value.objectValue != nil else { throw ValidationError("--custom must be a JSON object") }
        return value
    }
}
