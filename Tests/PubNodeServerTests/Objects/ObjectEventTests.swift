import NIOHTTP1
import PubNodeCore
import PubNodeServer
import PubNodeTestSupport
import XCTest

/// App Context changes reach subscribers as `e: 2` events on a keyset that enables them, and every
/// endpoint authorizes once.
final class ObjectEventTests: XCTestCase {
    func testEventsReachAParkedSubscriberWithTheExactEnvelope() async throws {
        let socket = try await SocketNode.start(Node(keysets: [Keyset(publishKey: "demo", subscribeKey: "demo",
                                                                      appContextEvents: true)]))
        let handshake = try XCTUnwrap(socket.get("/v2/subscribe/demo/u1,room/0?tt=0"))
        let cursor = try XCTUnwrap(handshake.json["t"]?["t"]?.stringValue)
        let subscriber = try RawSocket(port: socket.port)
        subscriber.send("GET /v2/subscribe/demo/u1,room/0?tt=\(cursor)&uuid=listener HTTP/1.1\r\nHost: x\r\n\r\n")

        let writer = try RawSocket(port: socket.port)
        writer.send("PATCH", "/v2/objects/demo/uuids/u1", body: #"{"name":"Ann","custom":{"a":1}}"#)
        let set = try XCTUnwrap(writer.response())
        XCTAssertEqual(set.status, 200, set.text)
        let answer = try XCTUnwrap(subscriber.response())
        let event = try XCTUnwrap(answer.json["m"]?[0])
        XCTAssertEqual(event.keys, ["a", "f", "e", "p", "k", "c", "d"], answer.text)
        XCTAssertEqual(event["e"], .number("2"))
        XCTAssertEqual(event["c"], .string("u1"))
        XCTAssertEqual(event["k"], .string("demo"))
        let data = try XCTUnwrap(event["d"])
        XCTAssertEqual(data["source"], .string("objects"))
        XCTAssertEqual(data["version"], .string("2.0"))
        XCTAssertEqual(data["event"], .string("set"))
        XCTAssertEqual(data["type"], .string("uuid"))
        XCTAssertEqual(data["data"]?.keys, ["id", "name", "custom", "updated", "eTag"], "an event carries what is set")
        XCTAssertEqual(data["data"]?["eTag"], set.json["data"]?["eTag"])

        let next = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
        writer.send("PATCH", "/v2/objects/demo/uuids/u1/channels", body: #"{"set":[{"channel":{"id":"room"},"status":"in"}]}"#)
        XCTAssertEqual(writer.response()?.status, 200)
        writer.send("DELETE", "/v2/objects/demo/uuids/u1")
        XCTAssertEqual(writer.response()?.status, 200)
        var seen: [JSON] = []
        var after = next
        while seen.count < 3 {
            subscriber.send("GET /v2/subscribe/demo/u1,room/0?tt=\(after)&uuid=listener HTTP/1.1\r\nHost: x\r\n\r\n")
            let more = try XCTUnwrap(subscriber.response())
            seen += more.json["m"]?.arrayValue ?? []
            after = try XCTUnwrap(more.json["t"]?["t"]?.stringValue)
        }
        let described = seen.map { [$0["c"]?.stringValue, $0["d"]?["type"]?.stringValue, $0["d"]?["event"]?.stringValue] }
        XCTAssertEqual(described, [["room", "membership", "set"], ["u1", "membership", "set"], ["u1", "uuid", "delete"]])
        XCTAssertEqual(seen[0]["d"]?["data"]?["channel"], .object(["id": .string("room")]))
        XCTAssertEqual(seen[0]["d"]?["data"]?["uuid"], .object(["id": .string("u1")]))
        XCTAssertEqual(seen[0]["d"]?["data"]?["status"], .string("in"))
        XCTAssertEqual(seen[2]["d"]?["data"], .object(["id": .string("u1")]))
        try await socket.server.shutdown()
    }

    func testIfMatchArrivesThroughTheConnection() async throws {
        let socket = try await SocketNode.start(Node())
        let writer = try RawSocket(port: socket.port)
        writer.send("PATCH", "/v2/objects/demo/channels/c", body: #"{"name":"A"}"#)
        XCTAssertEqual(writer.response()?.status, 200)
        writer.send("PATCH", "/v2/objects/demo/channels/c", body: #"{"name":"B"}"#, headers: ["If-Match": "stale"])
        let refused = try XCTUnwrap(writer.response())
        XCTAssertEqual(refused.status, 412, refused.text)
        try await socket.server.shutdown()
    }

    func testEachObjectsEndpointAuthorizesOnceWithItsResources() async throws {
        let log = RecordingAuthorizer()
        let router = Router(node: Node(authorizer: log))
        typealias R = AccessRequest.Resource
        let cases: [(HTTPMethod, String, String?, AccessRequest.Operation, [R])] = [
            (.PATCH, "/v2/objects/demo/uuids/u", "{}", .setUUIDMetadata, [R(.uuid, "u", .update)]),
            (.GET, "/v2/objects/demo/uuids/u", nil, .getUUIDMetadata, [R(.uuid, "u", .get)]),
            (.DELETE, "/v2/objects/demo/uuids/u", nil, .removeUUIDMetadata, [R(.uuid, "u", .delete)]),
            (.GET, "/v2/objects/demo/uuids", nil, .getAllUUIDMetadata, []),
            (.PATCH, "/v2/objects/demo/channels/c", "{}", .setChannelMetadata, [R(.channel, "c", .update)]),
            (.GET, "/v2/objects/demo/channels/c", nil, .getChannelMetadata, [R(.channel, "c", .get)]),
            (.DELETE, "/v2/objects/demo/channels/c", nil, .removeChannelMetadata, [R(.channel, "c", .delete)]),
            (.GET, "/v2/objects/demo/channels", nil, .getAllChannelMetadata, []),
            (.PATCH, "/v2/objects/demo/uuids/u/channels", #"{"set":[{"channel":{"id":"c"}}],"delete":[{"channel":{"id":"d"}}]}"#,
             .setMemberships, [R(.uuid, "u", .update), R(.channel, "c", .join), R(.channel, "d", .join)]),
            (.GET, "/v2/objects/demo/uuids/u/channels", nil, .getMemberships, [R(.uuid, "u", .get)]),
            (.PATCH, "/v2/objects/demo/channels/c/uuids", #"{"set":[{"uuid":{"id":"u"}}]}"#, .setMembers,
             [R(.channel, "c", .manage)]),
            (.GET, "/v2/objects/demo/channels/c/uuids", nil, .getMembers, [R(.channel, "c", .get)]),
        ]
        for (method, uri, body, operation, resources) in cases {
            let answer = try await router.objects(method, uri, body: body)
            XCTAssertEqual(answer.status, 200, "\(uri): \(answer.text)")
            let seen = log.take()
            XCTAssertEqual(seen.count, 1, "\(uri) must authorize exactly once")
            XCTAssertEqual(seen.first?.operation, operation, uri)
            XCTAssertEqual(seen.first?.resources, resources, uri)
        }
        let refusing = Router(node: Node(authorizer: RecordingAuthorizer(refusing: [.setUUIDMetadata, .setMemberships])))
        let refused = try await refusing.objects(.PATCH, "/v2/objects/demo/uuids/u", body: "{}")
        XCTAssertEqual(refused.status, 403)
        let membership = try await refusing.objects(.PATCH, "/v2/objects/demo/uuids/u/channels",
                                                    body: #"{"set":[{"channel":{"id":"c"}}]}"#)
        XCTAssertEqual(membership.status, 403)
        XCTAssertNil(try refusing.node.objects.object(.uuid, subscribeKey: "demo", id: "u"), "a refused set stores nothing")
        XCTAssertEqual(try refusing.node.objects.memberships(subscribeKey: "demo", uuid: "u", channel: nil), [])
    }
}
