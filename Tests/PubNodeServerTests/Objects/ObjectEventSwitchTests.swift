import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// App Context events (`e: 2`) are opt-in per keyset (`Keyset.appContextEvents`); message action
/// events (`e: 3`) are not affected by the switch.
final class ObjectEventSwitchTests: XCTestCase {
    /// A handshake cursor for `channels` of `key`.
    private func cursor(_ socket: SocketNode, _ key: String, _ channels: String) throws -> String {
        try XCTUnwrap(socket.get("/v2/subscribe/\(key)/\(channels)/0?tt=0")?.json["t"]?["t"]?.stringValue)
    }

    /// Sends a long-poll on a connection of its own and waits until it is parked on `channel`.
    private func park(_ socket: SocketNode, _ node: Node, _ key: String, _ channels: String, on channel: String) async throws -> RawSocket {
        let tt = try cursor(socket, key, channels)
        let poll = try RawSocket(port: socket.port)
        poll.send("GET /v2/subscribe/\(key)/\(channels)/0?tt=\(tt)&uuid=listener HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = await waitUntil(10, "the poll to park") { node.hub(key)?.waiterCount(on: channel) == 1 }
        return poll
    }

    @discardableResult
    private func send(_ writer: RawSocket, _ method: String, _ target: String, body: String = "") throws -> Response {
        writer.send(method, target, body: body)
        let answer = try XCTUnwrap(writer.response(), target)
        XCTAssertEqual(answer.status, 200, "\(target): \(answer.text)")
        return answer
    }

    func testWithEventsOffObjectChangesWakeNoSubscriberAndBufferNothing() async throws {
        let node = Node()
        let socket = try await SocketNode.start(node)
        let poll = try await park(socket, node, "demo", "u1,room", on: "u1")
        let writer = try RawSocket(port: socket.port)
        try send(writer, "PATCH", "/v2/objects/demo/uuids/u1", body: #"{"name":"Ann"}"#)
        try send(writer, "PATCH", "/v2/objects/demo/channels/room", body: #"{"name":"Room"}"#)
        try send(writer, "PATCH", "/v2/objects/demo/uuids/u1/channels", body: #"{"set":[{"channel":{"id":"room"}}]}"#)
        try send(writer, "PATCH", "/v2/objects/demo/channels/room/uuids", body: #"{"delete":[{"uuid":{"id":"u1"}}]}"#)
        try send(writer, "DELETE", "/v2/objects/demo/channels/room")
        try send(writer, "DELETE", "/v2/objects/demo/uuids/u1")
        // Each change is announced (or not) before it is answered: nothing can still be on its way.
        let hub = try XCTUnwrap(node.hub())
        XCTAssertEqual(hub.waiterCount(on: "u1"), 1, "no App Context event woke the poll")
        let buffered = hub.statistics(busiest: 100).busiest.filter { ["u1", "room"].contains($0.name) }
        XCTAssertEqual(buffered.map(\.buffered), [0, 0], "neither channel's buffer got an event")

        let published = try send(writer, "GET", "/publish/demo/demo/0/room/0/%22hello%22?uuid=tester")
        let answer = try XCTUnwrap(poll.response())
        XCTAssertEqual(answer.json["m"]?.arrayValue.count, 1, answer.text)
        XCTAssertEqual(answer.json["m"]?[0]?["d"], .string("hello"), "the first thing delivered is the ordinary message")

        let messageTT = try XCTUnwrap(published.json[2]?.stringValue)
        let next = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
        poll.send("GET /v2/subscribe/demo/room/0?tt=\(next)&uuid=listener HTTP/1.1\r\nHost: x\r\n\r\n")
        try send(writer, "POST", "/v1/message-actions/demo/channel/room/message/\(messageTT)?uuid=alice",
                 body: #"{"type":"reaction","value":"smile"}"#)
        let actionEvent = try XCTUnwrap(poll.response())
        XCTAssertEqual(actionEvent.json["m"]?[0]?["e"], .number("3"), "message action events do not need the switch")
        try await socket.server.shutdown()
    }

    func testEventsFollowEachKeysetsOwnSwitch() async throws {
        let node = Node(keysets: [Keyset(publishKey: "demo", subscribeKey: "demo", appContextEvents: true),
                                  Keyset(publishKey: "quiet", subscribeKey: "quiet")])
        let socket = try await SocketNode.start(node)
        let loud = try await park(socket, node, "demo", "u1", on: "u1")
        let quiet = try await park(socket, node, "quiet", "u1", on: "u1")
        let writer = try RawSocket(port: socket.port)
        try send(writer, "PATCH", "/v2/objects/quiet/uuids/u1", body: #"{"name":"Ann"}"#)
        try send(writer, "PATCH", "/v2/objects/demo/uuids/u1", body: #"{"name":"Ann"}"#)
        let event = try XCTUnwrap(loud.response(), "the enabled keyset announces the change")
        XCTAssertEqual(event.json["m"]?[0]?["e"], .number("2"), event.text)
        XCTAssertEqual(event.json["m"]?[0]?["d"]?["type"], .string("uuid"))
        XCTAssertEqual(node.hub("quiet")?.waiterCount(on: "u1"), 1, "the other keyset's subscriber stays parked")
        try send(writer, "GET", "/publish/quiet/quiet/0/u1/0/%22plain%22?uuid=tester")
        let plain = try XCTUnwrap(quiet.response())
        XCTAssertEqual(plain.messagePayloads, [.string("plain")], plain.text)
        try await socket.server.shutdown()
    }

    func testTheSwitchIsDecodedAndOffWhenAbsent() throws {
        let old = try JSONDecoder().decode(Keyset.self, from: Data(#"{"publishKey":"p","subscribeKey":"s"}"#.utf8))
        XCTAssertFalse(old.appContextEvents, "a keyset stored before the switch existed keeps events off")
        let on = Keyset(publishKey: "p", subscribeKey: "s", appContextEvents: true)
        XCTAssertEqual(try JSONDecoder().decode(Keyset.self, from: JSONEncoder().encode(on)), on)
        XCTAssertFalse(Keyset.demo.appContextEvents)
    }
}
