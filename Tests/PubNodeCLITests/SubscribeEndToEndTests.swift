import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// `pubnode-cli subscribe` running in the background against an in-process node.
final class SubscribeEndToEndTests: XCTestCase {
    var node: TestNode!

    override func setUp() async throws {
        node = try await TestNode.start()
    }

    override func tearDown() async throws {
        try await node.shutdown()
    }

    /// Starts `subscribe` as `uuid` and waits until the node sees it present on `channel`.
    private func startSubscriber(_ arguments: [String], uuid: String, channel: String,
                                 environment: [String: String] = [:]) async throws -> CLIProcess {
        let process = try CLIProcess(["subscribe"] + arguments + ["--uuid", uuid, "--origin", node.origin],
                                     environment: environment)
        let checker = node.client()
        // Present means the handshake was served: its cursor is older than any later publish, so
        // the long-poll that follows collects those whether it reaches the node before or after.
        await waitUntil(10, "\(uuid) subscribed") { (try? await checker.whereNow(uuid: uuid))?.contains(channel) == true }
        return process
    }

    func testCountExitsAfterNMessagesAndJSONParsesBack() async throws {
        let subscriber = try await startSubscriber(["chat", "--count", "2", "--json"], uuid: "counter", channel: "chat")
        let first = try await runCLI(["publish", "chat", "{\"text\":\"one\"}", "--uuid", "alice", "--meta", "{\"m\":1}",
                                      "--origin", node.origin])
        let second = try await runCLI(["signal", "chat", "two", "--uuid", "bob", "--origin", node.origin])
        let status = await subscriber.waitForExit(15)
        XCTAssertEqual(status, 0, subscriber.stderr)
        let objects = try subscriber.lines.map { try JSONValue(jsonData: Data($0.utf8)) }
        XCTAssertEqual(objects.count, 2, subscriber.stdout)
        XCTAssertEqual(objects.map { $0["type"] }, ["message", "signal"])
        XCTAssertEqual(objects.map { $0["channel"] }, ["chat", "chat"])
        XCTAssertEqual(objects.map { $0["publisher"] }, ["alice", "bob"])
        XCTAssertEqual(objects.map { $0["message"] }, [["text": "one"], "two"])
        XCTAssertEqual(objects.first?["meta"], ["m": 1])
        XCTAssertEqual(objects.map { $0["timetoken"]?.stringValue ?? "" },
                       [first.stdout, second.stdout].map { $0.trimmingCharacters(in: .newlines) })
        let left = try await node.client().whereNow(uuid: "counter")
        XCTAssertEqual(left, [], "leaving after --count")
    }

    func testPipedOutputIsJSONAndTextCanBeForced() async throws {
        let piped = try await startSubscriber(["lines", "--count", "1"], uuid: "piped", channel: "lines")
        let text = try await startSubscriber(["lines", "--count", "1", "--text"], uuid: "texter", channel: "lines")
        _ = try await runCLI(["publish", "lines", "hello there", "--uuid", "carol", "--origin", node.origin])
        let pipedStatus = await piped.waitForExit(15)
        let textStatus = await text.waitForExit(15)
        XCTAssertEqual(pipedStatus, 0, piped.stderr)
        XCTAssertEqual(textStatus, 0, text.stderr)
        XCTAssertEqual(try JSONValue(jsonData: Data(piped.stdout.utf8))["message"], "hello there")
        let line = try XCTUnwrap(text.lines.first)
        XCTAssertTrue(line.hasSuffix("  lines  carol  hello there"), line)
        XCTAssertFalse(line.contains("\u{1B}"), "no colour when not a terminal")
    }

    func testPresenceGroupsAndCatchUp() async throws {
        let client = node.client()
        try await client.add(channels: ["g-chat"], to: "team")
        let before = try await client.publish(channel: "g-chat", message: "earlier" as JSONValue)
        let subscriber = try await startSubscriber(["--group", "team", "--presence", "--timetoken", String(before - 1),
                                                    "--count", "2", "--json"], uuid: "grouper", channel: "g-chat")
        try await client.publish(channel: "g-chat", message: "later" as JSONValue)
        let status = await subscriber.waitForExit(15)
        XCTAssertEqual(status, 0, subscriber.stderr)
        let objects = try subscriber.lines.map { try JSONValue(jsonData: Data($0.utf8)) }
        let messages = objects.filter { $0["type"] == "message" }
        XCTAssertEqual(messages.map { $0["message"] }, ["earlier", "later"])
        XCTAssertEqual(messages.first?["subscription"], "team")
        let joins = objects.filter { $0["type"] == "presence" }
        XCTAssertEqual(objects.count, 3, "the join is printed but not counted")
        XCTAssertEqual(joins.first?["action"], "join")
        XCTAssertEqual(joins.first?["uuid"], "grouper")
    }

    func testInterruptSendsLeaveAndExitsZero() async throws {
        let watcher = node.client(userId: "watcher")
        let recorder = PresenceRecorder()
        watcher.addListener(recorder)
        await watcher.subscribe(to: ["room"], withPresence: true)
        await waitUntil(5, "watcher connected") { await watcher.connectionStatus == .connected }
        let subscriber = try await startSubscriber(["room"], uuid: "ctrl-c", channel: "room")
        await waitUntil(5, "join seen") { recorder.actions(of: "ctrl-c").contains("join") }
        subscriber.interrupt()
        let status = await subscriber.waitForExit(15)
        XCTAssertEqual(status, 0, subscriber.stderr)
        XCTAssertEqual(subscriber.process.terminationReason, .exit)
        // The presence timeout is 300 s, so only a leave can end the presence this quickly. A
        // long-poll already on its way when the leave went out can make the uuid present again for
        // a moment; the client then leaves once more (`SubscriptionLoop.unsubscribe`), so the
        // watcher may see a second join and leave.
        var actions: [String] = []
        await waitUntil(5, "leave seen") {
            actions = recorder.actions(of: "ctrl-c")
            return actions.last == "leave"
        }
        XCTAssertTrue(actions == ["join", "leave"] || actions == ["join", "leave", "join", "leave"], "\(actions)")
        let whereNow = try await node.client().whereNow(uuid: "ctrl-c")
        XCTAssertEqual(whereNow, [])
        await watcher.unsubscribeAll()
    }

    func testRefusedSubscriptionExitsOneWithTheServerText() async throws {
        let result = try await runCLI(["subscribe", "a:b", "--origin", node.origin], timeout: 15)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.hasPrefix("error: 400 Invalid channel name 'a:b'"), result.stderr)
        let unreachable = try await runCLI(["subscribe", "chat", "--origin", "127.0.0.1:1"], timeout: 15)
        XCTAssertEqual(unreachable.status, 1)
        XCTAssertTrue(unreachable.stderr.hasPrefix("error: cannot reach 127.0.0.1:1"), unreachable.stderr)
    }
}

/// Records presence events as (uuid, action) pairs.
final class PresenceRecorder: SubscriptionListener, @unchecked Sendable {
    // Invariant: `events` is only touched while `lock` is held.
    private let lock = NSLock()
    private var events: [(uuid: String, action: String)] = []

    func didReceive(presence: PresenceChange) {
        lock.lock(); defer { lock.unlock() }
        events.append((presence.uuid ?? "", presence.action))
    }

    /// The actions seen for `uuid`, in order.
    func actions(of uuid: String) -> [String] {
        lock.lock(); defer { lock.unlock() }
        return events.filter { $0.uuid == uuid }.map(\.action)
    }
}
