import ArgumentParser
import PubNodeClient
import XCTest
@testable import PubNodeCLI

/// Argument parsing, configuration resolution, help text and exit-status mapping, in process.
final class ParsingTests: XCTestCase {
    func testPublishArguments() throws {
        let command = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["publish", "chat", "hello", "--meta", "{\"a\":1}", "--no-store", "--ttl", "5", "--post", "--type", "note"])
            as? PublishCommand)
        XCTAssertEqual(command.channel, "chat")
        XCTAssertEqual(command.message, "hello")
        XCTAssertEqual(command.meta, "{\"a\":1}")
        XCTAssertTrue(command.noStore)
        XCTAssertEqual(command.ttl, 5)
        XCTAssertTrue(command.post)
        XCTAssertEqual(command.customMessageType, "note")
        XCTAssertFalse(command.lines)
    }

    func testGlobalOptionsMayComeBeforeTheCommand() throws {
        let moved = PubNodeCLIRunner.movingGlobalOptions(["--origin", "h:9", "--json", "--uuid=u1", "publish", "chat", "--", "-5"])
        XCTAssertEqual(moved, ["publish", "chat", "--origin", "h:9", "--json", "--uuid=u1", "--", "-5"])
        let command = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(moved) as? PublishCommand)
        XCTAssertEqual(command.global.origin, "h:9")
        XCTAssertEqual(command.message, "-5")
        XCTAssertEqual(PubNodeCLIRunner.movingGlobalOptions(["publish", "chat", "hi"]), ["publish", "chat", "hi"])
    }

    func testSubscribeArguments() throws {
        let command = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["subscribe", "chat", "news.*", "--group", "g1", "--group", "g2", "--presence", "--timetoken", "17000000000000000",
             "--count", "3", "--json", "--origin", "example.org:80", "--uuid", "alice"]) as? SubscribeCommand)
        XCTAssertEqual(command.channels, ["chat", "news.*"])
        XCTAssertEqual(command.groups, ["g1", "g2"])
        XCTAssertTrue(command.presence)
        XCTAssertEqual(command.timetoken, 17_000_000_000_000_000)
        XCTAssertEqual(command.count, 3)
        XCTAssertTrue(command.global.json)
        XCTAssertTrue(command.printsJSON)
        XCTAssertEqual(command.global.origin, "example.org:80")
        XCTAssertEqual(command.global.uuid, "alice")
    }

    func testHistoryDefaultsToFetchAndHasSubcommands() throws {
        let fetch = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(
            ["history", "chat", "news", "--count", "5", "--start", "10", "--end", "2", "--reverse", "--meta"])
            as? HistoryFetchCommand)
        XCTAssertEqual(fetch.channels, ["chat", "news"])
        XCTAssertEqual(fetch.count, 5)
        XCTAssertEqual(fetch.start, 10)
        XCTAssertEqual(fetch.end, 2)
        XCTAssertTrue(fetch.reverse && fetch.meta)
        let delete = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "delete", "chat", "--end", "7"])
            as? HistoryDeleteCommand)
        XCTAssertEqual(delete.channel, "chat")
        XCTAssertEqual(delete.end, 7)
        let count = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["history", "count", "a", "b", "--since", "9"])
            as? HistoryCountCommand)
        XCTAssertEqual(count.channels, ["a", "b"])
        XCTAssertEqual(count.since, 9)
    }

    func testPresenceGroupAndTimeCommands() throws {
        let set = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["state", "set", "chat", "news", "{\"mood\":\"ok\"}"])
            as? StateSetCommand)
        XCTAssertEqual(set.channels, ["chat", "news"])
        let get = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["state", "get", "chat", "--user", "bob"]) as? StateGetCommand)
        XCTAssertEqual(get.user, "bob")
        XCTAssertNotNil(try PubNodeCLICommand.parseAsRoot(["here-now"]) as? HereNowCommand)
        XCTAssertEqual((try PubNodeCLICommand.parseAsRoot(["where-now", "bob"]) as? WhereNowCommand)?.user, "bob")
        let add = try XCTUnwrap(PubNodeCLICommand.parseAsRoot(["group", "add", "g", "a", "b"]) as? GroupAddCommand)
        XCTAssertEqual(add.group, "g")
        XCTAssertEqual(add.channels, ["a", "b"])
        XCTAssertNil((try PubNodeCLICommand.parseAsRoot(["group", "list"]) as? GroupListCommand)?.group)
        XCTAssertNotNil(try PubNodeCLICommand.parseAsRoot(["group", "delete", "g"]) as? GroupDeleteCommand)
        XCTAssertNotNil(try PubNodeCLICommand.parseAsRoot(["time"]) as? TimeCommand)
    }

    /// Usage errors map to exit status 2 with ArgumentParser's message.
    func testUsageErrorsExitTwo() {
        let cases: [[String]] = [
            ["publish", "chat", "hi", "--bogus"], ["publish"], ["nonsense"], ["subscribe"], ["subscribe", "chat", "--count", "0"],
            ["history", "chat", "--count", "abc"], ["publish", "chat", "x", "--lines"], ["publish", "chat", "x", "--meta", "{nope"],
            ["state", "set", "chat", "[1]"], ["state", "set", "{\"a\":1}"], ["group", "add", "g"], ["time", "--timeout", "0"],
        ]
        for arguments in cases {
            do {
                _ = try PubNodeCLICommand.parseAsRoot(arguments)
                XCTFail("\(arguments) parsed")
            } catch {
                let outcome = PubNodeCLIRunner.outcome(for: error)
                XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.message)")
                XCTAssertFalse(outcome.message.isEmpty, "\(arguments)")
            }
        }
    }

    func testHelpAndVersionExitZero() async throws {
        for arguments in [["--help"], ["publish", "--help"], ["history", "count", "-h"], ["help", "subscribe"]] {
            let outcome = await PubNodeCLIRunner.execute(arguments)
            XCTAssertEqual(outcome.status, 0, "\(arguments)")
            XCTAssertTrue(outcome.message.contains("USAGE: pubnode-cli"), "\(arguments): \(outcome.message)")
        }
        let subscribe = await PubNodeCLIRunner.execute(["help", "subscribe"])
        XCTAssertTrue(subscribe.message.contains("--presence"), subscribe.message)
        let version = await PubNodeCLIRunner.execute(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.message, "1.0.0")
        let usage = await PubNodeCLIRunner.execute(["publish", "chat", "--bogus"])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.message.contains("Unknown option '--bogus'"), usage.message)
    }

    func testCommandErrorsMapToOneOrTwo() {
        let server = CLIError(PubNodeClientError.server(status: 400, message: "Invalid Key"), origin: "h:1")
        XCTAssertEqual(PubNodeCLIRunner.outcome(for: server).status, 1)
        XCTAssertEqual(PubNodeCLIRunner.outcome(for: server).message, "error: 400 Invalid Key")
        let network = CLIError(PubNodeClientError.transport("refused"), origin: "h:1")
        XCTAssertEqual(PubNodeCLIRunner.outcome(for: network).status, 1)
        XCTAssertEqual(network.message, "cannot reach h:1: refused")
        XCTAssertEqual(PubNodeCLIRunner.outcome(for: CLIError("bad", isUsage: true)).status, 2)
        XCTAssertEqual(PubNodeCLIRunner.outcome(for: ValidationError("bad")).status, 2)
    }

    /// Every command's help has examples; the root lists every command.
    func testEveryCommandHasHelpWithExamples() {
        func visit(_ command: any ParsableCommand.Type, path: [String]) {
            let help = PubNodeCLICommand.helpMessage(for: command, columns: 120)
            let name = path.joined(separator: " ")
            XCTAssertTrue(help.contains("Example"), "\(name) has no examples")
            XCTAssertTrue(help.contains("pubnode-cli"), "\(name)")
            for sub in command.configuration.subcommands {
                visit(sub, path: path + [sub.configuration.commandName ?? "?"])
            }
        }
        visit(PubNodeCLICommand.self, path: ["pubnode-cli"])
        let root = PubNodeCLICommand.helpMessage(columns: 120)
        for name in ["publish", "signal", "fire", "subscribe", "history", "here-now", "where-now", "state", "group", "time", "token", "keyset"] {
            XCTAssertTrue(root.contains(name), "root help lacks \(name)")
        }
        let publish = PubNodeCLICommand.helpMessage(for: PublishCommand.self, columns: 120)
        for option in ["--origin", "--pub-key", "--sub-key", "--uuid", "--secure", "--lines", "--no-store", "--ttl", "--post",
                       "PUBNODE_ORIGIN"] {
            XCTAssertTrue(publish.contains(option), "publish help lacks \(option)")
        }
    }

    func testConfigurationDefaultsEnvironmentAndFlags() throws {
        let defaults = try GlobalOptions.parse([]).configuration(environment: [:])
        XCTAssertEqual(defaults.origin, "127.0.0.1:8090")
        XCTAssertEqual(defaults.publishKey, "demo")
        XCTAssertEqual(defaults.subscribeKey, "demo")
        XCTAssertTrue(defaults.userId.hasPrefix("pubnode-cli-"))
        XCTAssertFalse(defaults.secure)

        let environment = ["PUBNODE_ORIGIN": "node.example:9000", "PUBNODE_PUB_KEY": "p", "PUBNODE_SUB_KEY": "s",
                           "PUBNODE_UUID": "env-user", "PUBNODE_SECURE": "true", "PUBNODE_AUTH": "tok"]
        let fromEnvironment = try GlobalOptions.parse([]).configuration(environment: environment)
        XCTAssertEqual(fromEnvironment.origin, "node.example:9000")
        XCTAssertEqual(fromEnvironment.publishKey, "p")
        XCTAssertEqual(fromEnvironment.subscribeKey, "s")
        XCTAssertEqual(fromEnvironment.userId, "env-user")
        XCTAssertEqual(fromEnvironment.authToken, "tok")
        XCTAssertTrue(fromEnvironment.secure)

        let flags = try GlobalOptions.parse(["--origin", "https://flag.example:443/", "--pub-key", "fp", "--uuid", "flag-user",
                                             "--timeout", "2.5"]).configuration(environment: environment)
        XCTAssertEqual(flags.origin, "flag.example:443")
        XCTAssertTrue(flags.secure)
        XCTAssertEqual(flags.publishKey, "fp")
        XCTAssertEqual(flags.subscribeKey, "s")
        XCTAssertEqual(flags.userId, "flag-user")
        XCTAssertEqual(flags.requestTimeout, 2.5)
        XCTAssertEqual(flags.baseURL, "https://flag.example:443")

        XCTAssertThrowsError(try GlobalOptions.parse([]).configuration(environment: ["PUBNODE_SECURE": "maybe"])) { error in
            XCTAssertEqual(PubNodeCLIRunner.outcome(for: error).status, 2)
        }
        XCTAssertThrowsError(try GlobalOptions.parse(["--origin", "host:1/path"]).configuration(environment: [:]))
    }
}
