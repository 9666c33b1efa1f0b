import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// `/v1/message-actions/…` and `/v3/history-with-actions/…` through the production router.
final class MessageActionEndpointTests: XCTestCase {
    private let base = "/v1/message-actions/demo/channel/ch"

    private func node(limits: Limits = Limits()) -> (Node, Router) {
        let clock = TimetokenClock()
        let history = MessageHistory(store: MemoryHistoryStore(), policies: ["demo": HistoryPolicy()], clock: clock,
                                     flushMilliseconds: 1)
        let node = Node(limits: limits, clock: clock, history: history)
        return (node, Router(node: node))
    }

    private func call(_ router: Router, _ target: String, _ method: HTTPMethod = .GET, body: String? = nil,
                      file: StaticString = #filePath, line: UInt = #line) async throws -> (status: Int, json: JSON, text: String) {
        let request = try PubNubRequest(method: method, uri: target, body: body.map { ByteBuffer(string: $0) })
        let reply = await router.answer(request)
        let text = reply.map { String(buffer: $0.body) } ?? ""
        return (Int(reply?.status.code ?? 0), JSON.parse(Array(text.utf8)), text)
    }

    private func add(_ router: Router, message: String, type: String = "reaction", value: String = "smile",
                     uuid: String = "alice") async throws -> (status: Int, json: JSON, text: String) {
        try await call(router, "\(base)/message/\(message)?uuid=\(uuid)", .POST,
                       body: #"{"type":"\#(type)","value":"\#(value)"}"#)
    }

    func testAddGetRemoveRoundTrip() async throws {
        let (_, router) = node()
        let added = try await add(router, message: "15610547826969050")
        XCTAssertEqual(added.status, 200, added.text)
        XCTAssertEqual(added.json["status"], .number("200"))
        let data = try XCTUnwrap(added.json["data"])
        XCTAssertEqual(data["type"], .string("reaction"))
        XCTAssertEqual(data["value"], .string("smile"))
        XCTAssertEqual(data["uuid"], .string("alice"))
        XCTAssertEqual(data["messageTimetoken"], .string("15610547826969050"))
        let actionTT = try XCTUnwrap(data["actionTimetoken"]?.stringValue)
        XCTAssertTrue(added.text.contains(#""actionTimetoken":"\#(actionTT)""#), "timetokens are strings: \(added.text)")

        let listed = try await call(router, base)
        XCTAssertEqual(listed.text, #"{"status":200,"data":[{"type":"reaction","value":"smile","uuid":"alice","actionTimetoken":"\#(actionTT)","messageTimetoken":"15610547826969050"}]}"#)

        let removed = try await call(router, "\(base)/message/15610547826969050/action/\(actionTT)?uuid=alice", .DELETE)
        XCTAssertEqual(removed.text, #"{"status":200,"data":{}}"#)
        let emptied = try await call(router, base)
        XCTAssertEqual(emptied.text, #"{"status":200,"data":[]}"#)
        let again = try await call(router, "\(base)/message/15610547826969050/action/\(actionTT)?uuid=alice", .DELETE)
        XCTAssertEqual(again.status, 400)
        XCTAssertEqual(again.json["message"], .string("No matching message actions to delete"))
    }

    func testDuplicateIsAConflictAndOnlyTheAuthorRemoves() async throws {
        let (_, router) = node()
        let first = try await add(router, message: "100")
        let byBob = try await add(router, message: "100", uuid: "bob")
        XCTAssertEqual(byBob.status, 200)
        let duplicate = try await add(router, message: "100")
        XCTAssertEqual(duplicate.status, 409)
        XCTAssertEqual(duplicate.text, #"{"status":409,"error":true,"message":"Action Already Added","service":"Message Actions"}"#)
        let actionTT = try XCTUnwrap(first.json["data"]?["actionTimetoken"]?.stringValue)
        let wrong = try await call(router, "\(base)/message/100/action/\(actionTT)?uuid=bob", .DELETE)
        XCTAssertEqual(wrong.status, 400)
        XCTAssertEqual(wrong.json["message"], .string("Not deleting message action: wrong uuid specified"))
        let kept = try await call(router, base)
        XCTAssertEqual(kept.json["data"]?.arrayValue.count, 2, "nothing removed")
    }

    func testTheCapPerMessage() async throws {
        var limits = Limits()
        limits.maxActionsPerMessage = 2
        let (_, router) = node(limits: limits)
        for value in ["a", "b"] {
            let added = try await add(router, message: "100", value: value)
            XCTAssertEqual(added.status, 200)
        }
        let full = try await add(router, message: "100", value: "c")
        XCTAssertEqual(full.status, 400)
        XCTAssertTrue(full.text.contains("most actions allowed (2)"), full.text)
    }

    func testPagingNewestPageFirstEachOldestFirstWithMore() async throws {
        let (_, router) = node()
        var timetokens: [String] = []
        for index in 0..<5 {
            let added = try await add(router, message: "100", value: "v\(index)")
            timetokens.append(try XCTUnwrap(added.json["data"]?["actionTimetoken"]?.stringValue))
        }
        let page = try await call(router, "\(base)?limit=2")
        XCTAssertEqual(page.json["data"]?.arrayValue.compactMap { $0["actionTimetoken"]?.stringValue }, Array(timetokens[3...]))
        XCTAssertEqual(page.json["more"]?["start"]?.stringValue, timetokens[3])
        XCTAssertEqual(page.json["more"]?["limit"], .number("2"))
        let url = try XCTUnwrap(page.json["more"]?["url"]?.stringValue)
        XCTAssertEqual(url, "/v1/message-actions/demo/channel/ch?start=\(timetokens[3])&limit=2")
        let next = try await call(router, url)
        XCTAssertEqual(next.json["data"]?.arrayValue.compactMap { $0["actionTimetoken"]?.stringValue }, Array(timetokens[1...2]))
        let bounded = try await call(router, "\(base)?start=\(timetokens[4])&end=\(timetokens[2])")
        XCTAssertEqual(bounded.json["data"]?.arrayValue.compactMap { $0["actionTimetoken"]?.stringValue }, Array(timetokens[2...3]))
        XCTAssertNil(bounded.json["more"], bounded.text)
    }

    func testFollowingMoreEndsWhicheverWayTheBoundsWereGiven() async throws {
        let (_, router) = node()
        var timetokens: [String] = []
        for index in 0..<5 {
            let added = try await add(router, message: "100", value: "v\(index)")
            timetokens.append(try XCTUnwrap(added.json["data"]?["actionTimetoken"]?.stringValue))
        }
        let below = String(UInt64(timetokens[0])! - 1)
        // `start` below `end`: the slice start < t ≤ end, all five, read newest page first.
        for first in ["\(base)?start=\(below)&end=\(timetokens[4])&limit=2", "\(base)?end=\(timetokens[0])&limit=2"] {
            var seen: [String] = []
            var target: String? = first
            var pages = 0
            while let next = target, pages < 10 {
                let page = try await call(router, next)
                seen = (page.json["data"]?.arrayValue.compactMap { $0["actionTimetoken"]?.stringValue } ?? []) + seen
                target = page.json["more"]?["url"]?.stringValue
                pages += 1
            }
            XCTAssertEqual(seen, timetokens, first)
            XCTAssertEqual(pages, 3, "three pages of at most two, then no more: \(first)")
        }
    }

    func testBadInputGetsPubNubShapedErrors() async throws {
        let (_, router) = node()
        let huge = String(repeating: "x", count: MessageAction.maxValueBytes + 1)
        let cases: [(String, HTTPMethod, String?, Int, String)] = [
            ("\(base)/message/100?uuid=a", .POST, "not json", 400, "body must be a JSON object"),
            ("\(base)/message/100?uuid=a", .POST, "[1,2]", 400, "body must be a JSON object"),
            ("\(base)/message/100?uuid=a", .POST, nil, 400, "body must be a JSON object"),
            ("\(base)/message/100?uuid=a", .POST, #"{"value":"v"}"#, 400, "type must be a string"),
            ("\(base)/message/100?uuid=a", .POST, #"{"type":1,"value":"v"}"#, 400, "type must be a string"),
            ("\(base)/message/100?uuid=a", .POST, #"{"type":"t"}"#, 400, "value must be a string"),
            ("\(base)/message/100?uuid=a", .POST, #"{"type":"","value":"v"}"#, 400, "type must be a non-empty string"),
            ("\(base)/message/100?uuid=a", .POST, #"{"type":"sixteen-chars-xx","value":"v"}"#, 400, "at most 15 characters"),
            ("\(base)/message/100?uuid=a", .POST, #"{"type":"t","value":"\#(huge)"}"#, 400, "at most 1024 bytes"),
            ("\(base)/message/abc?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "message timetoken must be"),
            ("\(base)/message/0?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "message timetoken must be"),
            ("\(base)/message/99999999999999999999?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "message timetoken must be"),
            ("\(base)/message/100", .POST, #"{"type":"t","value":"v"}"#, 400, "uuid is required"),
            ("/v1/message-actions/demo/channel/a.*/message/100?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "Invalid channel name"),
            ("/v1/message-actions/demo/channel/x-pnpres/message/100?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "Invalid channel name"),
            ("/v1/message-actions/nope/channel/ch/message/100?uuid=a", .POST, #"{"type":"t","value":"v"}"#, 400, "Invalid Key"),
            ("\(base)/message/100/action/x?uuid=a", .DELETE, nil, 400, "action timetoken must be"),
            ("\(base)?limit=101", .GET, nil, 400, "limit must be between 1 and 100"),
            ("\(base)?start=x", .GET, nil, 400, "start must be a non-negative integer timetoken"),
            ("\(base)/message/100", .PATCH, nil, 404, "no such endpoint"),
        ]
        for (target, method, body, status, text) in cases {
            let answer = try await call(router, target, method, body: body)
            XCTAssertEqual(answer.status, status, "\(method) \(target): \(answer.text)")
            XCTAssertEqual(answer.json["error"], .bool(true), answer.text)
            XCTAssertTrue(answer.text.contains(text), "\(method) \(target): \(answer.text)")
            if target.contains("/demo/") { XCTAssertEqual(answer.json["service"], .string("Message Actions"), answer.text) }
        }
    }

    func testHistoryWithActionsShape() async throws {
        let (_, router) = node()
        let one = try await call(router, "/publish/demo/demo/0/ch/0/%22one%22?uuid=p")
        let two = try await call(router, "/publish/demo/demo/0/ch/0/%22two%22?uuid=p")
        let first = try XCTUnwrap(one.json[2]?.stringValue)
        let second = try XCTUnwrap(two.json[2]?.stringValue)
        let addedA = try await add(router, message: first, value: "smile")
        let addedB = try await add(router, message: first, value: "smile", uuid: "bob")
        let addedC = try await add(router, message: first, type: "receipt", value: "read")
        let a = try XCTUnwrap(addedA.json["data"]?["actionTimetoken"]?.stringValue)
        let b = try XCTUnwrap(addedB.json["data"]?["actionTimetoken"]?.stringValue)
        let c = try XCTUnwrap(addedC.json["data"]?["actionTimetoken"]?.stringValue)
        let fetched = try await call(router, "/v3/history-with-actions/sub-key/demo/channel/ch?include_uuid=false&include_message_type=false")
        XCTAssertEqual(fetched.text, #"{"status":200,"error":false,"error_message":"","channels":{"ch":["#
            + #"{"message":"one","timetoken":"\#(first)","actions":{"reaction":{"smile":[{"uuid":"alice","actionTimetoken":"\#(a)"},{"uuid":"bob","actionTimetoken":"\#(b)"}]},"receipt":{"read":[{"uuid":"alice","actionTimetoken":"\#(c)"}]}}},"#
            + #"{"message":"two","timetoken":"\#(second)","actions":{}}]}}"#)
        let paged = try await call(router, "/v3/history-with-actions/sub-key/demo/channel/ch?max=1&include_uuid=false&include_message_type=false")
        XCTAssertEqual(paged.json["more"]?["start"]?.stringValue, second)
        XCTAssertEqual(paged.json["more"]?["max"], .number("1"))
        XCTAssertEqual(paged.json["more"]?["url"]?.stringValue,
                       "/v3/history-with-actions/sub-key/demo/channel/ch?start=\(second)&max=1")
        let several = try await call(router, "/v3/history-with-actions/sub-key/demo/channel/ch,other")
        XCTAssertEqual(several.status, 400, several.text)
        let tooMany = try await call(router, "/v3/history-with-actions/sub-key/demo/channel/ch?max=26")
        XCTAssertEqual(tooMany.status, 400, tooMany.text)

        // Deleting the first message's history deletes its actions.
        let deleted = try await call(router, "/v3/history/sub-key/demo/channel/ch?start=\(UInt64(first)! + 1)&end=\(first)", .DELETE)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        let left = try await call(router, base)
        XCTAssertEqual(left.text, #"{"status":200,"data":[]}"#)
    }

    func testEachOperationAuthorizesOnceAndARefusalChangesNothing() async throws {
        let log = RecordingAuthorizer(refusing: [.addMessageAction])
        let router = Router(node: Node(authorizer: log))
        let refused = try await add(router, message: "100")
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(log.take().map(\.operation), [.addMessageAction])
        let listed = try await call(router, "\(base)?uuid=u")
        XCTAssertEqual(listed.text, #"{"status":200,"data":[]}"#, "a refused add stores nothing")
        let seen = log.take()
        XCTAssertEqual(seen.map(\.operation), [.getMessageActions])
        XCTAssertEqual(seen.first?.resources, [AccessRequest.Resource(.channel, "ch", .read)])
        let removal = try await call(router, "\(base)/message/100/action/5?uuid=alice", .DELETE)
        XCTAssertEqual(removal.status, 400, removal.text)
        let removing = log.take()
        XCTAssertEqual(removing.map(\.operation), [.removeMessageAction])
        XCTAssertEqual(removing.first?.resources, [AccessRequest.Resource(.channel, "ch", .delete)])
        XCTAssertEqual(removing.first?.uuid, "alice")
    }

    func testAnAddReachesAParkedSubscriberAsAnE3Event() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.eventLoopThreads = 1
        let server = PubNodeHTTPServer(configuration: configuration, node: Node())
        let port = try await server.start()
        let origin = "http://127.0.0.1:\(port)"
        let session = URLSession(configuration: .ephemeral)
        let (handshake, _) = try await session.data(from: URL(string: "\(origin)/v2/subscribe/demo/room/0?tt=0")!)
        let cursor = try XCTUnwrap(Response.parse(httpBody: handshake)["t"]?["t"]?.stringValue)
        let parked = Task {
            try await session.data(from: URL(string: "\(origin)/v2/subscribe/demo/room/0?tt=\(cursor)&uuid=watcher")!)
        }
        let arrived = await eventually { !(server.node.presence.keyset("demo")?.whereNow(uuid: "watcher") ?? []).isEmpty }
        XCTAssertTrue(arrived, "the long-poll reached the node")
        var add = URLRequest(url: URL(string: "\(origin)/v1/message-actions/demo/channel/room/message/1700000000000000000?uuid=alice")!)
        add.httpMethod = "POST"
        add.httpBody = Data(#"{"type":"reaction","value":"smile"}"#.utf8)
        let (added, _) = try await session.data(for: add)
        let actionTT = try XCTUnwrap(Response.parse(httpBody: added)["data"]?["actionTimetoken"]?.stringValue)
        let (body, _) = try await parked.value
        let event = try XCTUnwrap(Response.parse(httpBody: body)["m"]?[0])
        let eventTT = try XCTUnwrap(event["p"]?["t"]?.stringValue)
        let exact = #"{"a":"0","f":0,"i":"alice","p":{"t":"\#(eventTT)","r":1},"k":"demo","c":"room","#
            + #""d":{"source":"actions","version":"1.0","event":"added","data":{"messageTimetoken":"1700000000000000000","#
            + #""type":"reaction","value":"smile","actionTimetoken":"\#(actionTT)","uuid":"alice"}},"e":3"#
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains(exact), String(decoding: body, as: UTF8.self))
        XCTAssertEqual(event["e"], .number("3"))
        XCTAssertEqual(event["i"], .string("alice"))
        XCTAssertEqual(event["c"], .string("room"))
        XCTAssertNotEqual(event["p"]?["t"]?.stringValue, actionTT, "the event has its own timetoken")
        XCTAssertEqual(event["d"], .object([
            "source": .string("actions"), "version": .string("1.0"), "event": .string("added"),
            "data": .object(["messageTimetoken": .string("1700000000000000000"), "type": .string("reaction"),
                             "value": .string("smile"), "actionTimetoken": .string(actionTT), "uuid": .string("alice")]),
        ]))
        try await server.shutdown()
    }
}
