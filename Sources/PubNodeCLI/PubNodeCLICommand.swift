import ArgumentParser

/// The root command of `pubnode-cli`: a publish/subscribe tool for PubNode and other nodes
/// speaking PubNub's HTTP protocol.
public struct PubNodeCLICommand: AsyncParsableCommand {
    /// The command's name, abstract, examples and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "pubnode-cli",
        abstract: "Publish, subscribe, presence, channel groups and history from the command line.",
        discussion: """
        Every command talks to one node: 127.0.0.1:8090 with the demo/demo keyset unless --origin, \
        --pub-key and --sub-key (or PUBNODE_ORIGIN, PUBNODE_PUB_KEY, PUBNODE_SUB_KEY) say otherwise, \
        so it works right after `swift run pubnode`. Messages given on the command line are sent as \
        JSON when they parse as JSON and as a JSON string otherwise.

        Examples:
          pubnode-cli publish chat hello
          pubnode-cli publish chat '{"text":"hi"}' --meta '{"lang":"en"}'
          tail -f app.log | pubnode-cli publish logs --lines
          pubnode-cli subscribe chat news --presence
          pubnode-cli subscribe chat --count 1 --json | jq .message
          pubnode-cli history chat --count 10
          pubnode-cli publish secret '{"pin":1}' --cipher-key myCipherKey
          pubnode-cli actions add chat 17952634067723888 reaction smiley_face
          pubnode-cli objects uuid set alice --name Alice
          pubnode-cli here-now chat
          pubnode-cli --secret-key sec-c-… token grant --ttl 60 --channel 'chat=rw'
          pubnode-cli keyset create --access-manager --admin-token …
          pubnode-cli stats --watch --admin-token …

        Exit status: 0 success, 1 server or network error, 2 usage error.
        """,
        version: "1.0.0",
        subcommands: [
            PublishCommand.self, SignalCommand.self, FireCommand.self, SubscribeCommand.self,
            HistoryCommand.self, HereNowCommand.self, WhereNowCommand.self, StateCommand.self,
            GroupCommand.self, TimeCommand.self, TokenCommand.self, KeysetCommand.self, StatsCommand.self,
            ActionsCommand.self, ObjectsCommand.self,
        ]
    )

    /// Creates the root command (ArgumentParser fills it in).
    public init() {}
}
