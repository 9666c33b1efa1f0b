import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// App Context calls: the requests they send and the PubNub answers they parse.
final class AppContextClientTests: XCTestCase {
    static let uuidAnswer = #"{"status":200,"data":{"id":"u 1","name":"Ann","externalId":null,"profileUrl":"https://p/a.png","email":"ann@example.com","type":"admin","status":"active","custom":{"age":7},"updated":"2024-01-01T00:00:00.000000Z","eTag":"AbC"}}"#

    func testSetUUIDMetadataSendsPatchWithIfMatchAndIncludes() async throws {
        let transport = WireFixtures.transport { _ in Self.uuidAnswer }
        let client = WireFixtures.client(transport)
        let stored = try await client.setUUIDMetadata(
            UUIDMetadata(id: "u 1", name: "Ann", email: "ann@example.com", custom: ["age": 7]),
            include: [.custom, .status, .type], ifMatchesEtag: "AbC")
        XCTAssertEqual(stored, UUIDMetadata(id: "u 1", name: "Ann", profileURL: "https://p/a.png", email: "ann@example.com",
                                            type: "admin", status: "active", custom: ["age": 7],
                                            updated: "2024-01-01T00:00:00.000000Z", eTag: "AbC"))
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "PATCH")
        XCTAssertEqual(WireFixtures.rawPath(request), "/v2/objects/sub/uuids/u%201")
        XCTAssertEqual(try WireFixtures.body(request), ["name": "Ann", "email": "ann@example.com", "custom": ["age": 7]])
        XCTAssertEqual(request.headers["If-Match"], "AbC")
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        XCTAssertEqual(WireFixtures.query(request)["include"], "custom,status,type")
    }

    func testFetchAndRemoveUUIDMetadataDefaultToOwnId() async throws {
        let transport = WireFixtures.transport { request in
            request.method == "DELETE" ? #"{"status":200,"data":null}"# : Self.uuidAnswer
        }
        let client = WireFixtures.client(transport)
        let fetched = try await client.fetchUUIDMetadata()
        XCTAssertEqual(fetched.name, "Ann")
        let removed = try await client.removeUUIDMetadata(ifMatchesEtag: "E1")
        XCTAssertEqual(removed, "me")
        XCTAssertEqual(transport.requests.map(WireFixtures.rawPath), ["/v2/objects/sub/uuids/me", "/v2/objects/sub/uuids/me"])
        XCTAssertEqual(transport.requests.map(\.method), ["GET", "DELETE"])
        XCTAssertNil(transport.requests[0].headers["If-Match"])
        XCTAssertEqual(transport.requests[1].headers["If-Match"], "E1")
    }

    func testAllChannelMetadataSendsListOptionsAndReadsThePage() async throws {
        let transport = WireFixtures.transport { _ in
            #"{"status":200,"data":[{"id":"c1","name":"One","description":"first","updated":"2024-01-01T00:00:00Z","eTag":"e1"},{"id":"c2","name":null,"description":null,"custom":null,"updated":"2024-01-02T00:00:00Z","eTag":"e2"}],"totalCount":9,"next":"Mg","prev":"MQ"}"#
        }
        let client = WireFixtures.client(transport)
        let page = try await client.allChannelMetadata(ObjectsListOptions(
            include: [.custom, .totalCount], filter: "name LIKE 'O*'", sort: ["name", "updated:desc"], limit: 2,
            page: .next("MQ")))
        XCTAssertEqual(page.items, [
            ChannelMetadata(id: "c1", name: "One", channelDescription: "first", updated: "2024-01-01T00:00:00Z", eTag: "e1"),
            ChannelMetadata(id: "c2", updated: "2024-01-02T00:00:00Z", eTag: "e2"),
        ])
        XCTAssertEqual(page.totalCount, 9)
        XCTAssertEqual(page.next, "Mg")
        XCTAssertEqual(page.prev, "MQ")
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(WireFixtures.rawPath(request), "/v2/objects/sub/channels")
        let query = WireFixtures.query(request)
        XCTAssertEqual(query["include"], "custom")
        XCTAssertEqual(query["count"], "true")
        XCTAssertEqual(query["filter"], "name LIKE 'O*'")
        XCTAssertEqual(query["sort"], "name,updated:desc")
        XCTAssertEqual(query["limit"], "2")
        XCTAssertEqual(query["start"], "MQ")
        XCTAssertNil(query["end"])
        XCTAssertTrue(request.url.absoluteString.contains("filter=name%20LIKE%20%27O%2A%27"), request.url.absoluteString)
        _ = try await client.allChannelMetadata(ObjectsListOptions(include: [], page: .prev("Mg")))
        let second = WireFixtures.query(transport.requests[1])
        XCTAssertEqual(second["end"], "Mg")
        XCTAssertNil(second["include"])
    }

    func testSetAndRemoveChannelMetadata() async throws {
        let transport = WireFixtures.transport { request in
            request.method == "DELETE" ? #"{"status":200,"data":null}"#
                : #"{"status":200,"data":{"id":"room","name":"Room","description":"d","type":"t","status":"s","updated":"x","eTag":"e"}}"#
        }
        let client = WireFixtures.client(transport)
        let stored = try await client.setChannelMetadata(ChannelMetadata(id: "room", name: "Room", channelDescription: "d"))
        XCTAssertEqual(stored.eTag, "e")
        XCTAssertEqual(stored.type, "t")
        XCTAssertEqual(try WireFixtures.body(transport.requests[0]), ["name": "Room", "description": "d"])
        let removed = try await client.removeChannelMetadata("room")
        XCTAssertEqual(removed, "room")
        XCTAssertEqual(transport.requests.map(WireFixtures.rawPath), ["/v2/objects/sub/channels/room", "/v2/objects/sub/channels/room"])
    }

    func testMembershipsSetRemoveAndFetch() async throws {
        let transport = WireFixtures.transport { _ in
            #"{"status":200,"data":[{"channel":{"id":"c1","name":"One","custom":{"k":1}},"custom":{"role":"mod"},"status":"active","type":"main","updated":"u","eTag":"e"},{"channel":{"id":"c2"},"updated":"u2","eTag":"e2"}],"next":"Mg"}"#
        }
        let client = WireFixtures.client(transport)
        let page = try await client.setMemberships(
            channels: [Membership(uuid: "me", channel: "c1", custom: ["role": "mod"], status: "active", type: "main")],
            ObjectsListOptions(include: [.custom, .channel, .channelCustom]))
        XCTAssertEqual(page.items[0], Membership(uuid: "me", channel: "c1",
                                                 channelMetadata: ChannelMetadata(id: "c1", name: "One", custom: ["k": 1]),
                                                 custom: ["role": "mod"], status: "active", type: "main", updated: "u", eTag: "e"))
        XCTAssertEqual(page.items[1], Membership(uuid: "me", channel: "c2", updated: "u2", eTag: "e2"))
        XCTAssertEqual(page.next, "Mg")
        XCTAssertEqual(try WireFixtures.body(transport.requests[0]),
                       ["set": [["channel": ["id": "c1"], "custom": ["role": "mod"], "status": "active", "type": "main"]],
                        "delete": []])
        XCTAssertEqual(WireFixtures.query(transport.requests[0])["include"], "custom,channel,channel.custom")
        _ = try await client.removeMemberships(uuid: "u2", channels: ["c1", "c 2"])
        XCTAssertEqual(try WireFixtures.body(transport.requests[1]),
                       ["set": [], "delete": [["channel": ["id": "c1"]], ["channel": ["id": "c 2"]]]])
        _ = try await client.fetchMemberships(uuid: "u2", ObjectsListOptions(limit: 5))
        XCTAssertEqual(transport.requests.map(\.method), ["PATCH", "PATCH", "GET"])
        XCTAssertEqual(transport.requests.map(WireFixtures.rawPath),
                       ["/v2/objects/sub/uuids/me/channels", "/v2/objects/sub/uuids/u2/channels", "/v2/objects/sub/uuids/u2/channels"])
        XCTAssertEqual(WireFixtures.query(transport.requests[2])["limit"], "5")
    }

    func testMembersSetRemoveAndFetch() async throws {
        let transport = WireFixtures.transport { _ in
            #"{"status":200,"data":[{"uuid":{"id":"u1","name":"Ann"},"custom":null,"updated":"u","eTag":"e"}],"totalCount":1}"#
        }
        let client = WireFixtures.client(transport)
        let page = try await client.setMembers(channel: "room", uuids: [Membership(uuid: "u1", channel: "room", custom: ["x": true])],
                                               ifMatchesEtag: "tag")
        XCTAssertEqual(page.items, [Membership(uuid: "u1", channel: "room", uuidMetadata: UUIDMetadata(id: "u1", name: "Ann"),
                                               updated: "u", eTag: "e")])
        XCTAssertEqual(page.totalCount, 1)
        XCTAssertEqual(try WireFixtures.body(transport.requests[0]), ["set": [["uuid": ["id": "u1"], "custom": ["x": true]]], "delete": []])
        XCTAssertEqual(transport.requests[0].headers["If-Match"], "tag")
        _ = try await client.removeMembers(channel: "room", uuids: ["u1"])
        XCTAssertEqual(try WireFixtures.body(transport.requests[1]), ["set": [], "delete": [["uuid": ["id": "u1"]]]])
        let fetched = try await client.fetchMembers(channel: "room")
        XCTAssertEqual(fetched.items.first?.uuid, "u1")
        XCTAssertEqual(transport.requests.map(WireFixtures.rawPath), Array(repeating: "/v2/objects/sub/channels/room/uuids", count: 3))
    }

    func testErrorsAndBadListOptions() async {
        let transport = AnsweringTransport { _ in
            TransportResponse(status: 412, body: Data(#"{"status":412,"error":{"message":"Object was modified.","source":"objects"}}"#.utf8))
        }
        let client = WireFixtures.client(transport)
        do {
            _ = try await client.setUUIDMetadata(UUIDMetadata(id: "u"), ifMatchesEtag: "old")
            XCTFail("expected a 412")
        } catch {
            XCTAssertEqual(error, .server(status: 412, message: "Object was modified."))
        }
        do {
            _ = try await client.allUUIDMetadata(ObjectsListOptions(limit: 0))
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error, .invalidArgument("the limit must be greater than 0"))
        }
        XCTAssertEqual(transport.requests.count, 1)
    }
}
