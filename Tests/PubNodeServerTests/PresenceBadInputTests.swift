import PubNodeCore
import XCTest

final class PresenceBadInputTests: XCTestCase {
    private let base = "/v2/presence/sub-key/demo"

    private func assertRefused(_ node: EmbeddedNode, _ target: String, status: Int = 400, contains text: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try node.get(target, file: file, line: line)
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        XCTAssertEqual(response.json["error"], .bool(true), response.text, file: file, line: line)
        XCTAssertTrue(response.text.contains(text), "\(response.text) lacks \(text)", file: file, line: line)
    }

    func testUnknownKeysAreRefusedByEveryPresenceEndpoint() throws {
        let node = EmbeddedNode()
        for target in ["/channel/c/heartbeat?uuid=u", "/channel/c/leave?uuid=u", "/channel/c", "", "/uuid/u",
                       "/channel/c/uuid/u", "/channel/c/uuid/u/data?state=%7B%7D"] {
            try assertRefused(node, "/v2/presence/sub-key/nope" + target, contains: "Invalid Key")
        }
    }

    func testHeartbeatRefusals() throws {
        let node = EmbeddedNode()
        try assertRefused(node, "\(base)/channel/c/heartbeat", contains: "uuid is required")
        for bad in ["x", "-1", "1.5", "99999999999"] {
            try assertRefused(node, "\(base)/channel/c/heartbeat?uuid=u&heartbeat=\(bad)", contains: "heartbeat must be")
        }
        try assertRefused(node, "\(base)/channel/,/heartbeat?uuid=u", contains: "at least one channel")
        try assertRefused(node, "\(base)/channel/c/heartbeat?uuid=u&state=%7B", contains: "Invalid state")
        try assertRefused(node, "\(base)/channel/c/heartbeat?uuid=u&state=%7B%22c%22%3A5%7D",
                          contains: "Invalid state: state for 'c' must be a JSON object")
        try assertRefused(node, "\(base)/channel/bad:name/heartbeat?uuid=u", contains: "Invalid channel name")
        XCTAssertEqual(try node.get("\(base)/uuid/u").json["payload"]?["channels"], .array([]), "nothing was recorded")
    }

    func testStateRefusals() throws {
        var limits = Limits()
        limits.maxStateBytes = 16
        let node = EmbeddedNode(limits: limits)
        try assertRefused(node, "\(base)/channel/c/uuid/u/data", contains: "state is required")
        try assertRefused(node, "\(base)/channel/c/uuid/u/data?state=nope", contains: "Invalid state: state must be a JSON object")
        try assertRefused(node, "\(base)/channel/c/uuid/u/data?state=%5B1%5D", contains: "Invalid state")
        try assertRefused(node, "\(base)/channel/c/uuid/u/data?state=%7B%22k%22%3A%2201234567890%22%7D",
                          contains: "State too large (limit 16 bytes)")
        try assertRefused(node, "/v2/subscribe/demo/c/0?tt=0&uuid=u&state=%7B%22c%22%3A%7B%22k%22%3A%2201234567890%22%7D%7D",
                          contains: "State too large")
        let response = try node.get("\(base)/channel/c/uuid/u/data?state=%7B%22k%22%3A1%7D")
        XCTAssertEqual(response.json["service"], .string("Presence"))
        XCTAssertEqual(response.status, 200)
    }

    func testTooManyChannelsOrGroupsAndBadPaging() throws {
        var limits = Limits()
        limits.maxChannelsPerSubscribe = 2
        limits.maxGroupsPerSubscribe = 1
        let node = EmbeddedNode(limits: limits)
        try assertRefused(node, "\(base)/channel/a,b,c/heartbeat?uuid=u", contains: "Too many channels")
        try assertRefused(node, "\(base)/channel/a,b,c", contains: "Too many channels")
        try assertRefused(node, "\(base)/channel/a/leave?uuid=u&channel-group=g1,g2", contains: "Too many channel groups")
        try assertRefused(node, "\(base)/channel/a?limit=-1", contains: "limit")
        try assertRefused(node, "\(base)/channel/a?offset=x", contains: "offset")
        try assertRefused(node, "\(base)/channel/a?disable_uuids=maybe", contains: "disable_uuids")
    }

    func testUnknownPresencePathsAreNotFound() throws {
        let node = EmbeddedNode()
        try assertRefused(node, "\(base)/channel/c/nope", status: 404, contains: "no such endpoint")
        try assertRefused(node, "\(base)/other/c", status: 404, contains: "no such endpoint")
    }
}
