import NIOHTTP1
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// App Context events (`e: 2`) are opt-in per keyset (`Keyset.appContextEvents`); message action
/// events (`e: 3`) are not affected by the switch.
final class ObjectEventSwitchTests: XCTestCase {
    private func subscribe(_ connection: Connection, _ key: String, _ channels: String, _ cursor: String) throws {
        try connection.send("GET /v2/subscribe/\(key)/\(channels)/0?tt=\(cursor)&uuid=listener HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    func testWithEventsOffObjectChangesWakeNoSubscriberAndBufferNothing() async throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("u1,room")
        let poll = try node.connect()
        try subscribe(poll, "demo", "u1,room", cursor)
        XCTAssertNil(try poll.response(), "parked")
        let changes: [(HTTPMethod, String, String?)] = [
            (.PATCH, "/v2/objects/demo/uuids/u1", #"{"name":"Ann"}"#),
            (.PATCH, "/v2/objects/demo/channels/room", #"{"name":"Room"}"#),
            (.PATCH, "/v2/objects/demo/uuids/u1/channels", #"{"set":[{"channel":{"id":"room"}}]}"#),
            (.PATCH, "/v2/objects/demo/channels/room/uuids", #"{"delete":[{"uuid":{"id":"u1"}}]}"#),
            (.DELETE, "/v2/objects/demo/channels/room", nil),
            (.DELETE, "/v2/objects/demo/uuids/u1", nil),
        ]
        for (method, uri, body) in changes {
            let answer = try await node.router.objects(method, uri, body: body)
            XCTAssertEqual(answer.status, 200, "\(uri): \(answer.text)")
        }
        XCTAssertNil(try poll.response(), "no App Context event wakes the poll")
        let hub = try XCTUnwrap(node.node.hub())
        XCTAssertEqual(hub.waiterCount(on: "u1"), 1, "the poll is still parked")
        let buffered = hub.statistics(busiest: 100).busiest.filter { ["u1", "room"].contains($0.name) }
        XCTAssertEqual(buffered.map(\.buffered), [0, 0], "neither channel's buffer got an event")

        let published = try node.publish("room", #""hello""#)
        let answer = try XCTUnwrap(poll.response())
        XCTAssertEqual(answer.json["m"]?.arrayValue.count, 1, answer.text)
        XCTAssertEqual(answer.json["m"]?[0]?["d"], .string("hello"), "the first thing delivered is the ordinary message")

        let next = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
        try subscribe(poll, "demo", "room", next)
        let action = try await node.router.objects(.POST, "/v1/message-actions/demo/channel/room/message/\(published)?uuid=alice",
                                                   body: #"{"type":"reaction","value":"smile"}"#)
        XCTAssertEqual(action.status, 200, action.text)
        let actionEvent = try XCTUnwrap(poll.response())
        XCTAssertEqual(actionEvent.json["m"]?[0]?["e"], .number("3"), "message action events do not need the switch")
    }

    func testEventsFollowEachKeysetsOwnSwitch() async throws {
        let node = EmbeddedNode(keysets: [Keyset(publishKey: "demo", subscribeKey: "demo", appContextEvents: true),
                                          Keyset(publishKey: "quiet", subscribeKey: "quiet")])
        var polls: [String: Connection] = [:]
        for key in ["demo", "quiet"] {
            let handshake = try node.get("/v2/subscribe/\(key)/u1/0?tt=0")
            let poll = try node.connect()
            try subscribe(poll, key, "u1", try XCTUnwrap(handshake.json["t"]?["t"]?.stringValue))
            XCTAssertNil(try poll.response(), "parked on \(key)")
            polls[key] = poll
        }
        for key in ["demo", "quiet"] {
            let set = try await node.router.objects(.PATCH, "/v2/objects/\(key)/uuids/u1", body: #"{"name":"Ann"}"#)
            XCTAssertEqual(set.status, 200, set.text)
        }
        let event = try XCTUnwrap(try polls["demo"]?.response(), "the enabled keyset announces the change")
        XCTAssertEqual(event.json["m"]?[0]?["e"], .number("2"), event.text)
        XCTAssertEqual(event.json["m"]?[0]?["d"]?["type"], .string("uuid"))
        XCTAssertNil(try polls["quiet"]?.response(), "the other keyset's subscriber stays parked")
        XCTAssertEqual(node.node.hub("quiet")?.waiterCount(on: "u1"), 1)
    }

    func testTheSwitchIsDecodedAndOffWhenAbsent() throws {
        let old = try JSONDecoder().decode(Keyset.self, from: Data(#"{"publishKey":"p","subscribeKey":"s"}"#.utf8))
        XCTAssertFalse(old.appContextEvents, "a keyset stored before the switch existed keeps events off")
        let on = Keyset(publishKey: "p", subscribeKey: "s", appContextEvents: true)
        XCTAssertEqual(try JSONDecoder().decode(Keyset.self, from: JSONEncoder().encode(on)), on)
        XCTAssertFalse(Keyset.demo.appContextEvents)
    }
}
