import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

final class PresenceEndpointTests: XCTestCase {
    private let base = "/v2/presence/sub-key/demo"

    private func json(_ node: EmbeddedNode, _ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        let response = try node.get(target, file: file, line: line)
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        return response.json
    }

    private func occupants(_ node: EmbeddedNode, _ channel: String) throws -> [String] {
        try json(node, "\(base)/channel/\(channel)")["uuids"]?.arrayValue.compactMap(\.stringValue) ?? []
    }

    func testHeartbeatAnswersOKAndMakesTheUUIDPresent() throws {
        let node = EmbeddedNode()
        let response = try node.get("\(base)/channel/room,hall/heartbeat?uuid=alice&heartbeat=60")
        XCTAssertEqual(response.text, #"{"status":200,"message":"OK","service":"Presence"}"#)
        XCTAssertEqual(try occupants(node, "room"), ["alice"])
        XCTAssertEqual(try json(node, "\(base)/uuid/alice")["payload"]?["channels"], .array([.string("hall"), .string("room")]))
    }

    func testHeartbeatBelowTheMinimumIsRaisedAndZeroMeansTheDefault() throws {
        let clock = ManualClock()
        let node = EmbeddedNode(wall: clock)
        _ = try node.get("\(base)/channel/c/heartbeat?uuid=short&heartbeat=5")
        _ = try node.get("\(base)/channel/c/heartbeat?uuid=default&heartbeat=0")
        clock.advance(seconds: 19)
        _ = node.node.sweepPresence()
        XCTAssertEqual(try occupants(node, "c"), ["default", "short"], "5 s is raised to the 20 s minimum")
        clock.advance(seconds: 1)
        XCTAssertEqual(node.node.sweepPresence().timedOut, 1)
        XCTAssertEqual(try occupants(node, "c"), ["default"])
        clock.advance(seconds: 280)
        XCTAssertEqual(node.node.sweepPresence().timedOut, 1, "heartbeat=0 is the 300 s default")
    }

    func testLeaveRemovesAtOnceEvenWhileALongPollOfThatUUIDIsParked() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("room", query: "&uuid=s")
        let parked = try node.connect()
        try parked.send("GET /v2/subscribe/demo/room/0?tt=\(cursor)&uuid=s HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try parked.response())
        XCTAssertEqual(try occupants(node, "room"), ["s"])

        let leave = try node.get("\(base)/channel/room/leave?uuid=s")
        XCTAssertEqual(leave.text, #"{"status":200,"message":"OK","action":"leave","service":"Presence"}"#)
        XCTAssertEqual(try occupants(node, "room"), [])
        XCTAssertEqual(try json(node, "\(base)/uuid/s")["payload"]?["channels"], .array([]))
        XCTAssertNil(try parked.response(), "the abandoned poll stays parked")

        _ = try node.get("\(base)/channel/room/heartbeat?uuid=s")
        XCTAssertEqual(try occupants(node, "room"), ["s"], "a later heartbeat joins again")
    }

    func testLeaveThroughAChannelGroup() throws {
        let node = EmbeddedNode()
        _ = try node.get("/v1/channel-registration/sub-key/demo/channel-group/grp?add=a,b")
        _ = try node.handshake(",", query: "&channel-group=grp&uuid=u")
        XCTAssertEqual(try json(node, "\(base)/uuid/u")["payload"]?["channels"]?.arrayValue.count, 2)
        _ = try node.get("\(base)/channel/,/leave?uuid=u&channel-group=grp")
        XCTAssertEqual(try json(node, "\(base)/uuid/u")["payload"]?["channels"], .array([]))
    }

    func testHereNowShapes() throws {
        let node = EmbeddedNode()
        _ = try node.get("/v1/channel-registration/sub-key/demo/channel-group/grp?add=b")
        for uuid in ["u2", "u1", "u3"] { _ = try node.get("\(base)/channel/a/heartbeat?uuid=\(uuid)") }
        _ = try node.get("\(base)/channel/b/heartbeat?uuid=u1")
        _ = try node.get("\(base)/channel/a/uuid/u1/data?state=%7B%22k%22%3A1%7D")

        XCTAssertEqual(try node.get("\(base)/channel/a").text,
                       #"{"status":200,"message":"OK","occupancy":3,"uuids":["u1","u2","u3"],"service":"Presence"}"#)
        XCTAssertEqual(try node.get("\(base)/channel/a?disable_uuids=1").text,
                       #"{"status":200,"message":"OK","occupancy":3,"service":"Presence"}"#)
        XCTAssertEqual(try node.get("\(base)/channel/a?state=1&limit=2").text,
                       #"{"status":200,"message":"OK","occupancy":3,"uuids":[{"uuid":"u1","state":{"k":1}},{"uuid":"u2"}],"service":"Presence"}"#)
        XCTAssertEqual(try node.get("\(base)/channel/a?offset=2").json["uuids"], .array([.string("u3")]))
        XCTAssertEqual(try node.get("\(base)/channel/nobody").text,
                       #"{"status":200,"message":"OK","occupancy":0,"uuids":[],"service":"Presence"}"#)

        let several = try json(node, "\(base)/channel/a,b,nobody")
        XCTAssertEqual(several["payload"]?["total_channels"], .number("2"))
        XCTAssertEqual(several["payload"]?["total_occupancy"], .number("4"))
        XCTAssertEqual(several["payload"]?["channels"]?["b"], .object(["occupancy": .number("1"), "uuids": .array([.string("u1")])]))
        XCTAssertNil(several["payload"]?["channels"]?["nobody"], "empty channels are left out")

        let grouped = try json(node, "\(base)/channel/,?channel-group=grp&disable_uuids=1")
        XCTAssertEqual(grouped["payload"]?["channels"], .object(["b": .object(["occupancy": .number("1")])]))

        let global = try json(node, base)
        XCTAssertEqual(global["payload"]?["total_channels"], .number("2"))
        XCTAssertEqual(global["service"], .string("Presence"))
    }

    func testSetAndGetStateShapes() throws {
        let node = EmbeddedNode()
        _ = try node.get("\(base)/channel/a/heartbeat?uuid=u")
        let set = try node.get("\(base)/channel/a,b/uuid/u/data?state=%7B%22mood%22%3A%22ok%22%7D")
        XCTAssertEqual(set.text, #"{"status":200,"message":"OK","payload":{"mood":"ok"},"service":"Presence"}"#)
        XCTAssertEqual(try node.get("\(base)/channel/a/uuid/u").text,
                       #"{"status":200,"message":"OK","payload":{"mood":"ok"},"uuid":"u","channel":"a","service":"Presence"}"#)
        let several = try json(node, "\(base)/channel/a,b,c/uuid/u")
        XCTAssertEqual(several["payload"]?["channels"], .object([
            "a": .object(["mood": .string("ok")]), "b": .object(["mood": .string("ok")]), "c": .object([:]),
        ]))
        XCTAssertEqual(several["uuid"], .string("u"))
        XCTAssertEqual(try node.get("\(base)/channel/a/uuid/u/data?state=%7B%7D").json["payload"], .object([:]))
        XCTAssertEqual(try node.get("\(base)/channel/a/uuid/u").json["payload"], .object([:]))
    }

    func testStateChangeAndJoinReachAParkedPresenceSubscriber() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("room-pnpres")
        let watcher = try node.connect()
        try watcher.send("GET /v2/subscribe/demo/room-pnpres/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try watcher.response())
        _ = try node.get("\(base)/channel/room/heartbeat?uuid=joiner&state=%7B%22room%22%3A%7B%22a%22%3A1%7D%7D")
        let woken = try XCTUnwrap(watcher.response())
        let event = try XCTUnwrap(woken.json["m"]?[0])
        XCTAssertEqual(event["c"], .string("room-pnpres"))
        XCTAssertEqual(event["d"]?["action"], .string("join"))
        XCTAssertEqual(event["d"]?["uuid"], .string("joiner"))
        XCTAssertEqual(event["d"]?["occupancy"], .number("1"))
        XCTAssertEqual(event["d"]?["data"], .object(["a": .number("1")]))
        XCTAssertEqual(event["d"]?["state"], .object(["a": .number("1")]))
    }

    func testASubscriberWithPresenceReceivesItsOwnJoin() throws {
        let node = EmbeddedNode()
        let handshake = try node.get("/v2/subscribe/demo/room,room-pnpres/0?tt=0&uuid=me")
        XCTAssertEqual(handshake.json["m"], .array([]))
        let cursor = try XCTUnwrap(handshake.json["t"]?["t"]?.stringValue)
        let poll = try node.get("/v2/subscribe/demo/room,room-pnpres/0?tt=\(cursor)&uuid=me")
        XCTAssertEqual(poll.json["m"]?[0]?["d"]?["action"], .string("join"))
        XCTAssertEqual(poll.json["m"]?[0]?["d"]?["uuid"], .string("me"))
    }

    func testSubscribeCarriesStateAndHeartbeatAndRefusesBadOnes() throws {
        let node = EmbeddedNode()
        _ = try node.handshake("a,b", query: "&uuid=u&heartbeat=60&state=%7B%22a%22%3A%7B%22x%22%3A1%7D%7D")
        XCTAssertEqual(try node.get("\(base)/channel/a/uuid/u").json["payload"], .object(["x": .number("1")]))
        XCTAssertEqual(try node.get("\(base)/channel/b/uuid/u").json["payload"], .object([:]))
        let refused = try node.get("/v2/subscribe/demo/a/0?tt=0&uuid=u&state=%5B%5D")
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.text.contains("Invalid state"), refused.text)
        XCTAssertEqual(refused.json["service"], .string("Subscribe"))
    }
}
