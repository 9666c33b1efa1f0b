import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// The built `pubnode-cli`'s `actions` and `objects` commands against an in-process node.
final class ActionsObjectsEndToEndTests: XCTestCase {
    var node: TestNode!

    override func setUp() async throws {
        node = try await TestNode.start()
    }

    override func tearDown() async throws {
        try await node.shutdown()
    }

    private func cli(_ arguments: [String]) async throws -> CLIResult {
        try await runCLI(arguments + ["--origin", node.origin])
    }

    func testActionsAddListAndRemove() async throws {
        let message = try await node.client(userId: "pub").publish(channel: "chat", message: "hi")
        let added = try await cli(["actions", "add", "chat", String(message), "reaction", "smiley", "--uuid", "ann"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let action = try XCTUnwrap(UInt64(added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), added.stdout)
        let duplicate = try await cli(["actions", "add", "chat", String(message), "reaction", "smiley", "--uuid", "ann"])
        XCTAssertNotEqual(duplicate.status, 0, "a duplicate is refused")
        let listed = try await cli(["actions", "list", "chat", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let items = try listed.lines.map { try JSONValue(jsonData: Data($0.utf8)) }
        XCTAssertEqual(items.first?["value"], "smiley")
        XCTAssertEqual(items.first?["uuid"], "ann")
        let removed = try await cli(["actions", "remove", "chat", String(message), String(action), "--uuid", "ann"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let page = try await node.client().fetchMessageActions(channel: "chat")
        XCTAssertTrue(page.actions.isEmpty)
    }

    func testObjectsSetGetMembershipsAndRemove() async throws {
        let set = try await cli(["objects", "uuid", "set", "alice", "--name", "Alice", "--custom", #"{"age":7}"#])
        XCTAssertEqual(set.status, 0, set.stderr)
        let got = try await cli(["objects", "uuid", "get", "alice", "--json"])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertTrue(got.stdout.contains("\"Alice\""), got.stdout)
        let joined = try await cli(["objects", "memberships", "set", "alice", "chat", "news"])
        XCTAssertEqual(joined.status, 0, joined.stderr)
        let members = try await cli(["objects", "members", "list", "chat", "--json"])
        XCTAssertEqual(members.status, 0, members.stderr)
        XCTAssertTrue(members.stdout.contains("alice"), members.stdout)
        let removed = try await cli(["objects", "uuid", "remove", "alice"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let missing = try await cli(["objects", "uuid", "get", "alice"])
        XCTAssertNotEqual(missing.status, 0, "a removed object is not found")
    }
}
