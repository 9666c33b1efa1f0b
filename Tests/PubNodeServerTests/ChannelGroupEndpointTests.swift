import XCTest

final class ChannelGroupEndpointTests: XCTestCase {
    func testAddListRemoveDeleteAndListAll() throws {
        let node = EmbeddedNode()
        let base = "/v1/channel-registration/sub-key/demo/channel-group"
        let add = try node.get("\(base)/team?add=a,b,c&uuid=admin")
        XCTAssertEqual(add.json, .object(["status": .number("200"), "message": .string("OK"),
                                          "service": .string("channel-registry"), "error": .bool(false)]))
        XCTAssertEqual(try node.get("\(base)/team").json["payload"]?["channels"], .array([.string("a"), .string("b"), .string("c")]))
        XCTAssertEqual(try node.get("\(base)/team").json["payload"]?["group"], .string("team"))
        XCTAssertEqual(try node.get("\(base)/team?remove=b").status, 200)
        XCTAssertEqual(try node.get("\(base)/team").json["payload"]?["channels"], .array([.string("a"), .string("c")]))
        XCTAssertEqual(try node.get("\(base)/other?add=z").status, 200)
        XCTAssertEqual(try node.get(base).json["payload"]?["groups"], .array([.string("other"), .string("team")]))
        XCTAssertEqual(try node.get("\(base)/team/remove").status, 200)
        XCTAssertEqual(try node.get("\(base)/team").json["payload"]?["channels"], .array([]))
        XCTAssertEqual(try node.get(base).json["payload"]?["groups"], .array([.string("other")]))
    }

    func testUnknownGroupListsEmpty() throws {
        let node = EmbeddedNode()
        let response = try node.get("/v1/channel-registration/sub-key/demo/channel-group/never")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.json["payload"]?["channels"], .array([]))
    }

    func testRemovedChannelNoLongerReachesGroupSubscribers() throws {
        let node = EmbeddedNode()
        let base = "/v1/channel-registration/sub-key/demo/channel-group"
        _ = try node.get("\(base)/g?add=in,out")
        let cursor = try node.handshake(",", query: "&channel-group=g")
        _ = try node.get("\(base)/g?remove=out")
        try node.publish("out", "1")
        try node.publish("in", "2")
        let response = try node.get("/v2/subscribe/demo/,/0?tt=\(cursor)&channel-group=g")
        XCTAssertEqual(response.json["m"]!.arrayValue.map { $0["c"] }, [.string("in")])
    }

    func testLeaveAnswersOK() throws {
        let node = EmbeddedNode()
        let response = try node.get("/v2/presence/sub-key/demo/channel/a,b/leave?uuid=u&channel-group=g")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.json["action"], .string("leave"))
    }
}
