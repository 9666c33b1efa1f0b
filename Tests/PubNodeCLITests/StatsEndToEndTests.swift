import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// The built `pubnode-cli stats` against an in-process node whose traffic the test makes.
final class StatsEndToEndTests: XCTestCase {
    static let adminToken = "stats-admin-token-0123456789"
    var clock: ManualClock!
    var node: TestNode!

    override func setUp() async throws {
        clock = ManualClock()
        node = try await TestNode.start(wall: clock, adminToken: Self.adminToken)
    }

    override func tearDown() async throws {
        try await node.shutdown()
    }

    private func cli(_ arguments: [String], environment: [String: String] = [:]) async throws -> CLIResult {
        try await runCLI(["stats", "--origin", node.origin] + arguments, environment: environment)
    }

    /// A plain GET on the node; the status code.
    private func get(_ path: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: try XCTUnwrap(URL(string: "http://\(node.origin)\(path)")))
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// 65 s after start: three messages and a signal on chat, one message on news, and a reader
    /// catching up on chat from before them (four deliveries, and present on chat: its join is
    /// an event on the presence channel chat-pnpres, the third channel).
    private func makeTraffic() async throws {
        clock.advance(seconds: 65)
        let client = node.client(userId: "writer")
        let before = try await client.time()
        for text in ["a", "b", "c"] { try await client.publish(channel: "chat", message: text) }
        try await client.signal(channel: "chat", message: "typing")
        try await client.publish(channel: "news", message: "headline")
        let status = try await get("/v2/subscribe/demo/chat/0?tt=\(before)&uuid=reader")
        XCTAssertEqual(status, 200)
    }

    func testKnownTrafficGivesExactlyItsNumbers() async throws {
        try await makeTraffic()
        let result = try await cli(["--admin-token", Self.adminToken, "--channels", "5"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.lines
        XCTAssertFalse(result.stdout.contains("\u{1B}"), "no escape codes when not on a terminal")
        XCTAssertEqual(lines.first, "uptime        1m 05s")
        XCTAssertTrue(lines.contains("state         ready"), result.stdout)
        XCTAssertTrue(lines.contains("parked polls  0"), result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("connections   ") }, result.stdout)
        for expected in ["channels      3", "occupancy     1", "publishes     4", "signals       1", "fires         0",
                         "deliveries    4", "buffer gaps   0", "rate limited  0"] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in\n\(result.stdout)")
        }
        XCTAssertFalse(lines.contains { $0.hasPrefix("rates") }, "rates only when watching")
        let tables = result.stdout.components(separatedBy: "\n\n")
        XCTAssertEqual(tables.count, 3, result.stdout)
        XCTAssertEqual(tables[1], """
            KEYSET  CHANNELS  GROUPS  OCCUPANCY  PUBLISHES  SIGNALS  FIRES  DELIVERIES
            demo           3       0          1          4        1      0           4
            """)
        XCTAssertEqual(tables[2], """
            KEYSET  CHANNEL      PER SEC  PUBLISHES  BUFFERED  OCCUPANCY  PARKED
            demo    chat             0.4          4         4          1       0
            demo    chat-pnpres      0.1          1         1          0       0
            demo    news             0.1          1         1          0       0

            """)
    }

    func testJSONIsTheNodesDocument() async throws {
        try await makeTraffic()
        let result = try await cli(["--json", "--channels", "1"], environment: ["PUBNODE_ADMIN_TOKEN": Self.adminToken])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.count, 1)
        let document = try JSONValue(jsonData: Data(result.stdout.utf8))
        XCTAssertEqual(document["service"], "Stats")
        XCTAssertEqual(document["totals"]?["publishes"], 4)
        XCTAssertEqual(document["totals"]?["deliveries"], 4)
        XCTAssertEqual(document["channels"]?.arrayValue?.count, 1)
        XCTAssertEqual(document["channels"]?[0]?["name"], "chat")
        let typed = try await node.client().stats(adminToken: Self.adminToken, channels: 1)
        XCTAssertEqual(typed.totals.publishes, 4)
        XCTAssertEqual(typed.node.uptimeSeconds, 65)
        XCTAssertEqual(typed.channels.map(\.name), ["chat"])
    }

    func testWatchingPrintsOneSampleAfterAnother() async throws {
        let result = try await cli(["--admin-token", Self.adminToken, "--watch", "--interval", "0.1", "--count", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("\u{1B}"), "no screen clearing when not on a terminal")
        XCTAssertEqual(result.lines.filter { $0.hasPrefix("uptime") }.count, 2, result.stdout)
        // The node's clock stood still between the samples: no rate can be computed.
        XCTAssertEqual(result.lines.filter { $0 == "rates         after the next sample" }.count, 2, result.stdout)
        let json = try await cli(["--admin-token", Self.adminToken, "--watch", "--interval", "0.1", "--count", "2", "--json"])
        XCTAssertEqual(json.lines.count, 2, json.stdout)
        for line in json.lines { XCTAssertEqual(try JSONValue(jsonData: Data(line.utf8))["service"], "Stats") }
    }

    func testAWrongOrMissingTokenIsReportedWithItsExitStatus() async throws {
        let wrong = try await cli(["--admin-token", "not-the-token"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertEqual(wrong.stdout, "")
        XCTAssertEqual(wrong.stderr, "error: the node refused the admin token (401 Missing or wrong admin token)\n")
        let missing = try await cli([])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("--admin-token or PUBNODE_ADMIN_TOKEN"), missing.stderr)
        let closed = try await TestNode.start()
        let disabled = try await runCLI(["stats", "--origin", closed.origin, "--admin-token", "any"])
        try await closed.shutdown()
        XCTAssertEqual(disabled.status, 1)
        XCTAssertTrue(disabled.stderr.hasPrefix("error: the node refused the admin token (403 "), disabled.stderr)
        let unreachable = try await runCLI(["stats", "--origin", "127.0.0.1:1", "--admin-token", "x"])
        XCTAssertEqual(unreachable.status, 1)
        XCTAssertTrue(unreachable.stderr.contains("cannot reach 127.0.0.1:1"), unreachable.stderr)
    }
}
