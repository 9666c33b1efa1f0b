import ArgumentParser
import PubNodeClient

/// `pubnode-cli here-now [CHANNEL...]`: who is present on channels.
public struct HereNowCommand: AsyncParsableCommand {
    /// The command's name, abstract and examples.
    public static let configuration = CommandConfiguration(
        commandName: "here-now",
        abstract: "Show who is present on channels (the whole keyset when none is given).",
        discussion: """
        Prints one line per channel: its name, occupancy and user ids (with --state, each user's \
        state). --json prints one object mapping channels to {occupancy, occupants}.

        Examples:
          pubnode-cli here-now chat
          pubnode-cli here-now chat news --state
          pubnode-cli here-now --group friends
          pubnode-cli here-now
        """)

    /// Connection and output options.
    @OptionGroup(title: "Global options") public var global: GlobalOptions

    /// The channels.
    @Argument(help: "Channels (none: the whole keyset).") public var channels: [String] = []

    /// Channel groups whose channels to include.
    @Option(name: .customLong("group"), help: ArgumentHelp("A channel group; repeat for several.", valueName: "group"))
    public var groups: [String] = []

    /// Include presence state.
    @Flag(help: "Include each user's presence state.") public var state = false

    /// Occupancy only.
    @Flag(name: .customLong("no-uuids"), help: "Show occupancy only, without user ids.") public var noUUIDs = false

    /// Creates the command (ArgumentParser fills it in).
    public init() {}

    /// Asks the node and prints.
    public func run() async throws {
        let result = try await global.request { client async throws(PubNodeClientError) in
            try await client.hereNow(on: channels, and: groups, includeUUIDs: !noUUIDs, includeState: state)
        }
        if global.json {
            let object = result.mapValues { entry -> JSONValue in
                let occupants = entry.occupants.map { occupant -> JSONValue in
                    var item: [String: JSONValue] = ["uuid": .string(occupant.uuid)]
                    item["state"] = occupant.state
                    return .object(item)
                }
                return ["occupancy": .int(Int64(entry.occupancy)), "occupants": .array(occupants)]
            }
            Console.standardOutput.write(JSONValue.object(object).jsonString)
            return
        }
        let style = global.formatter().style
        var names = channels.filter { result[$0] != nil }
        names += result.keys.filter { !names.contains($0) }.sorted()
        for name in names {
            guard let entry = result[name] else { continue }
            var line = style.cyan(name) + "  " + style.bold("\(entry.occupancy)")
            let who = entry.occupants.map { occupant in
                occupant.uuid + (occupant.state.map { " " + $0.jsonString } ?? "")
            }
            if !who.isEmpty { line += "  " + who.joined(separator: state ? "; " : ", ") }
            Console.standardOutput.write(line)
        }
        for name in channels where result[name] == nil {
            Console.standardOutput.write(style.cyan(name) + "  " + style.bold("0"))
        }
    }
}
