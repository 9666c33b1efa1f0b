import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// The built `pubnode-cli` against an in-process node: publishing, history, presence, groups and errors.
final class PublishHistoryEndToEndTests: XCTestCase {
    var node: TestNode!

    override func setUp() async throws {
        node = try await TestNode.start()
    }

    override func tearDown() async throws {
        try await node.shutdown()
    }

    private func cli(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> CLIResult {
        try await runCLI(arguments + ["--origin", node.origin], stdin: stdin, environment: environment)
    }

    func testPublishThenHistory() async throws {
        let first = try await cli(["publish", "chat", "hello", "--uuid", "alice"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = try await cli(["publish", "chat", "{\"text\":\"hi\"}", "--meta", "{\"lang\":\"en\"}", "--uuid", "bob"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let tokens = [first.stdout, second.stdout].map { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertNotNil(tokens[0])
        XCTAssertNotNil(tokens[1])

        let stored = try await node.client().fetchMessageHistory(for: ["chat"], includeMeta: true)["chat"] ?? []
        XCTAssertEqual(stored.map(\.payload), ["hello", ["text": "hi"]])
        XCTAssertEqual(stored.map(\.publisher), ["alice", "bob"])
        XCTAssertEqual(stored.map(\.timetoken), tokens.compactMap { $0 })
        XCTAssertEqual(stored.last?.meta, ["lang": "en"])

        let text = try await cli(["history", "chat"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.lines.count, 2)
        XCTAssertTrue(text.lines[0].hasPrefix(String(tokens[0]!)) && text.lines[0].hasSuffix("alice  hello"), text.lines[0])

        let json = try await cli(["history", "chat", "--json", "--meta", "--reverse"])
        let objects = try json.lines.map { try JSONValue(jsonData: Data($0.utf8)) }
        XCTAssertEqual(objects.map { $0["message"] }, [["text": "hi"], "hello"])
        XCTAssertEqual(objects.first?["meta"], ["lang": "en"])
        XCTAssertEqual(objects.first?["timetoken"]?.stringValue, String(tokens[1]!))

        let bounded = try await cli(["history", "chat", "--json", "--start", String(tokens[1]!)])
        XCTAssertEqual(bounded.lines.count, 1)
        XCTAssertTrue(bounded.stdout.contains("\"hello\""))

        let count = try await cli(["history", "count", "chat", "--since", String(tokens[0]!)])
        XCTAssertEqual(count.stdout, "chat 1\n")

        let deleted = try await cli(["history", "delete", "chat"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        let after = try await node.client().fetchMessageHistory(for: ["chat"])
        XCTAssertNil(after["chat"])
    }

    func testPublishOptionsReachTheNode() async throws {
        let kept = try await cli(["publish", "opts", "42", "--string", "--post", "--ttl", "1", "--type", "note", "--json"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        let answer = try JSONValue(jsonData: Data(kept.stdout.utf8))
        XCTAssertEqual(answer["channel"], "opts")
        let notStored = try await cli(["publish", "opts", "{\"secret\":1}", "--no-store"])
        XCTAssertEqual(notStored.status, 0, notStored.stderr)
        let fired = try await cli(["fire", "opts", "{\"fired\":1}"])
        XCTAssertEqual(fired.status, 0, fired.stderr)
        let stored = try await node.client().fetchMessageHistory(for: ["opts"], includeCustomMessageType: true)["opts"] ?? []
        XCTAssertEqual(stored.map(\.payload), ["42"])
        XCTAssertEqual(stored.first?.customMessageType, "note")
        XCTAssertEqual(stored.first?.timetoken, answer["timetoken"]?.intValue.map { UInt64($0) })
    }

    func testPublishFromStandardInput() async throws {
        let whole = try await cli(["publish", "piped"], stdin: "{\"text\":\"from stdin\"}\n")
        XCTAssertEqual(whole.status, 0, whole.stderr)
        let lines = try await cli(["publish", "piped", "--lines"], stdin: "one\n{\"n\":2}\n\nthree\r\n")
        XCTAssertEqual(lines.status, 0, lines.stderr)
        XCTAssertEqual(lines.lines.count, 3)
        let stored = try await node.client().fetchMessageHistory(for: ["piped"])["piped"] ?? []
        XCTAssertEqual(stored.map(\.payload), [["text": "from stdin"], "one", ["n": 2], "three"])
        XCTAssertEqual(stored.dropFirst().map { String($0.timetoken) }, lines.lines)

        let empty = try await cli(["publish", "piped"], stdin: "")
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("no message"), empty.stderr)
    }

    func testServerAndNetworkErrorsExitOne() async throws {
        let badKey = try await cli(["publish", "chat", "hi", "--sub-key", "nope"])
        XCTAssertEqual(badKey.status, 1)
        XCTAssertEqual(badKey.stderr, "error: 400 Invalid Key\n")
        let badChannel = try await cli(["history", "a:b"])
        XCTAssertEqual(badChannel.status, 1)
        XCTAssertTrue(badChannel.stderr.hasPrefix("error: 400 Invalid channel name 'a:b'"), badChannel.stderr)
        let tooBig = try await cli(["signal", "chat", String(repeating: "x", count: 100)])
        XCTAssertEqual(tooBig.status, 1)
        XCTAssertTrue(tooBig.stderr.contains("400"), tooBig.stderr)
        let environment = ["PUBNODE_ORIGIN": node.origin, "PUBNODE_SUB_KEY": "nope"]
        let timeFromEnvironment = try await runCLI(["time"], environment: environment)
        XCTAssertEqual(timeFromEnvironment.status, 0, "time needs no key: \(timeFromEnvironment.stderr)")
        let keyFromEnvironment = try await runCLI(["publish", "chat", "hi"], environment: environment)
        XCTAssertEqual(keyFromEnvironment.status, 1)
        XCTAssertEqual(keyFromEnvironment.stderr, "error: 400 Invalid Key\n")
        let unreachable = try await runCLI(["time", "--origin", "127.0.0.1:1"])
        XCTAssertEqual(unreachable.status, 1)
        XCTAssertTrue(unreachable.stderr.hasPrefix("error: cannot reach 127.0.0.1:1"), unreachable.stderr)
    }

    func testUsageErrorsExitTwoAndHelpExitsZero() async throws {
        let unknown = try await cli(["publish", "chat", "hi", "--bogus"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("Unknown option '--bogus'"), unknown.stderr)
        XCTAssertEqual(unknown.stdout, "")
        let missing = try await runCLI(["history"])
        XCTAssertEqual(missing.status, 2)
        let badNumber = try await cli(["subscribe", "chat", "--count", "many"])
        XCTAssertEqual(badNumber.status, 2)
        let help = try await runCLI(["subscribe", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("Examples:") && help.stdout.contains("--count"), help.stdout)
        let version = try await runCLI(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.stdout, "1.0.0\n")
    }

    func testTimePresenceAndGroups() async throws {
        let time = try await cli(["time", "--json"])
        let object = try JSONValue(jsonData: Data(time.stdout.utf8))
        let nodeTime = try await node.client().time()
        let cliTime = try XCTUnwrap(object["timetoken"]?.intValue)
        XCTAssertLessThan(abs(Int64(nodeTime) - cliTime), 600_000_000, "within a minute")

        let added = try await cli(["group", "add", "friends", "chat", "news"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let listed = try await cli(["group", "list", "friends"])
        XCTAssertEqual(listed.lines, ["chat", "news"])
        _ = try await cli(["group", "remove", "friends", "news"])
        let groups = try await cli(["group", "list", "--json"])
        XCTAssertEqual(try JSONValue(jsonData: Data(groups.stdout.utf8)), ["friends"])
        let remaining = try await node.client().listChannels(for: "friends")
        XCTAssertEqual(remaining, ["chat"])
        _ = try await cli(["group", "delete", "friends"])
        let afterDelete = try await node.client().listChannelGroups()
        XCTAssertEqual(afterDelete, [])

        let present = node.client(userId: "dora")
        await present.subscribe(to: ["room"])
        await waitUntil(5, "dora present") { (try? await present.whereNow()) == ["room"] }
        let here = try await cli(["here-now", "room"])
        XCTAssertEqual(here.stdout, "room  1  dora\n")
        let whereNow = try await cli(["where-now", "dora", "--json"])
        XCTAssertEqual(try JSONValue(jsonData: Data(whereNow.stdout.utf8)), ["room"])
        let set = try await cli(["state", "set", "room", "{\"mood\":\"happy\"}", "--uuid", "dora"])
        XCTAssertEqual(set.status, 0, set.stderr)
        let get = try await cli(["state", "get", "room", "--user", "dora", "--json"])
        XCTAssertEqual(try JSONValue(jsonData: Data(get.stdout.utf8)), ["room": ["mood": "happy"]])
        await present.unsubscribeAll()
    }
}
