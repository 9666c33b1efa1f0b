import Foundation
import PubNodeClient
import PubNodeTestSupport
import XCTest

/// Message action calls: the requests they send and the PubNub answers they parse.
final class MessageActionsClientTests: XCTestCase {
    func testAddSendsTheSDKRequestAndParsesTheAnswer() async throws {
        let transport = WireFixtures.transport { _ in
            #"{"status":200,"data":{"type":"reaction","value":"smiley","uuid":"me","actionTimetoken":"15610547826970050","messageTimetoken":"15610547826969050"}}"#
        }
        let client = WireFixtures.client(transport)
        let action = try await client.addMessageAction(channel: "my ch", type: "reaction", value: "smiley",
                                                       messageTimetoken: 15_610_547_826_969_050)
        XCTAssertEqual(action, MessageAction(channel: "my ch", type: "reaction", value: "smiley", uuid: "me",
                                             actionTimetoken: 15_610_547_826_970_050, messageTimetoken: 15_610_547_826_969_050))
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(WireFixtures.rawPath(request), "/v1/message-actions/sub/channel/my%20ch/message/15610547826969050")
        XCTAssertEqual(try WireFixtures.body(request), ["type": "reaction", "value": "smiley"])
        XCTAssertEqual(request.headers["Content-Type"], "application/json")
        XCTAssertEqual(WireFixtures.query(request)["uuid"], "me")
    }

    func testAddRefusesAnAnswerWithoutItsFields() async {
        let client = WireFixtures.client(WireFixtures.transport { _ in #"{"status":200,"data":{"type":"reaction"}}"# })
        do {
            _ = try await client.addMessageAction(channel: "c", type: "reaction", value: "v", messageTimetoken: 1)
            XCTFail("expected a decoding error")
        } catch {
            guard case .decoding = error else { return XCTFail("\(error)") }
        }
        do {
            _ = try await client.addMessageAction(channel: "c", type: "", value: "v", messageTimetoken: 1)
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error, .invalidArgument("an action needs a type and a value"))
        }
    }

    func testAddConflictCarriesTheServersMessage() async {
        let transport = AnsweringTransport { _ in
            TransportResponse(status: 409, body: Data(#"{"status":409,"error":{"source":"actions","message":"Action Already Added"}}"#.utf8))
        }
        do {
            _ = try await WireFixtures.client(transport).addMessageAction(channel: "c", type: "t", value: "v", messageTimetoken: 1)
            XCTFail("expected a conflict")
        } catch {
            XCTAssertEqual(error, .server(status: 409, message: "Action Already Added"))
        }
    }

    func testRemoveSendsDelete() async throws {
        let transport = WireFixtures.transport { _ in #"{"status":200,"data":{}}"# }
        try await WireFixtures.client(transport).removeMessageActions(channel: "c/1", message: 10, action: 20)
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "DELETE")
        XCTAssertEqual(WireFixtures.rawPath(request), "/v1/message-actions/sub/channel/c%2F1/message/10/action/20")
        XCTAssertNil(request.body)
    }

    func testFetchPagesWithMore() async throws {
        let transport = WireFixtures.transport { request in
            WireFixtures.query(request)["start"] == nil
                ? #"{"status":200,"data":[{"type":"reaction","value":"a","uuid":"u1","actionTimetoken":"15","messageTimetoken":"10"},{"type":"receipt","value":"read","uuid":"u2","actionTimetoken":"16","messageTimetoken":"10"}],"more":{"url":"/v1/message-actions/sub/channel/c?start=15&end=1&limit=2","start":"15","end":"1","limit":2}}"#
                : #"{"status":200,"data":[{"type":"reaction","value":"b","uuid":"u1","actionTimetoken":"14","messageTimetoken":"9"}]}"#
        }
        let client = WireFixtures.client(transport)
        let first = try await client.fetchMessageActions(channel: "c", page: MessageActionsBounds(end: 1, limit: 2))
        XCTAssertEqual(first.actions.map(\.value), ["a", "read"])
        XCTAssertEqual(first.actions[1], MessageAction(channel: "c", type: "receipt", value: "read", uuid: "u2",
                                                       actionTimetoken: 16, messageTimetoken: 10))
        XCTAssertEqual(first.next, MessageActionsBounds(start: 15, end: 1, limit: 2))
        let second = try await client.fetchMessageActions(channel: "c", page: try XCTUnwrap(first.next))
        XCTAssertEqual(second.actions.map(\.value), ["b"])
        XCTAssertNil(second.next)
        let queries = transport.requests.map(WireFixtures.query)
        XCTAssertEqual(queries[0]["end"], "1")
        XCTAssertEqual(queries[0]["limit"], "2")
        XCTAssertNil(queries[0]["start"])
        XCTAssertEqual(queries[1]["start"], "15")
        XCTAssertEqual(WireFixtures.rawPath(transport.requests[0]), "/v1/message-actions/sub/channel/c")
    }

    func testHistoryWithActionsAttachesThemToEachMessage() async throws {
        let transport = WireFixtures.transport { _ in
            #"{"status":200,"channels":{"ch":[{"message":"hey-95","timetoken":"16075190603666320","uuid":"u9","actions":{"reaction":{"smiley":[{"uuid":"u1","actionTimetoken":"16075190603666400"}]}}},{"message":{"n":2},"timetoken":"16075190603666330"}]},"more":{"url":"/v3/history-with-actions/sub-key/sub/channel/ch?start=16075190603666320&max=2","start":"16075190603666320","max":2},"error_message":"","error":false}"#
        }
        let client = WireFixtures.client(transport)
        let result = try await client.fetchMessages(channels: ["ch"], max: 2, includeActions: true, includeMeta: true)
        let items = try XCTUnwrap(result["ch"])
        XCTAssertEqual(items.map(\.payload), ["hey-95", ["n": 2]])
        XCTAssertEqual(items[0].publisher, "u9")
        XCTAssertEqual(items[0].actions, ["reaction": ["smiley": [MessageActionRecord(uuid: "u1", actionTimetoken: 16_075_190_603_666_400)]]])
        XCTAssertEqual(items[1].actions, [:])
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(WireFixtures.rawPath(request), "/v3/history-with-actions/sub-key/sub/channel/ch")
        let query = WireFixtures.query(request)
        XCTAssertEqual(query["max"], "2")
        XCTAssertEqual(query["include_meta"], "true")
        XCTAssertEqual(query["include_uuid"], "true")
        do {
            _ = try await client.fetchMessages(channels: ["a", "b"], includeActions: true)
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error, .invalidArgument("history with actions takes exactly one channel"))
        }
        do {
            _ = try await client.fetchMessages(channels: ["a"], max: 26, includeActions: true)
            XCTFail("expected a refusal")
        } catch {
            XCTAssertEqual(error, .invalidArgument("max must be 1-25 with actions"))
        }
        XCTAssertEqual(transport.requests.count, 1, "refused calls send nothing")
    }
}
