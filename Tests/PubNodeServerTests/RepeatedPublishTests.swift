import NIOCore
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A connection's repeated publish decodes only its message when its target differs in the
/// message segment alone, and is still authorized, validated and answered exactly as a fresh one.
final class RepeatedPublishTests: XCTestCase {
    private let base = "/publish/demo/demo/0/room/0/%22a%22?uuid=u&store=0&meta=%7B%22k%22%3A1%7D"

    private func kept(_ target: String) throws -> RepeatedPublish {
        let (request, message) = try XCTUnwrap(PublishTarget.read(target))
        return RepeatedPublish(target: target, message: message, request: request)
    }

    func testOnlyTheMessageMayChange() throws {
        let repeated = try kept(base)
        let next = { (message: String) in self.base.replacingOccurrences(of: "%22a%22", with: message) }
        XCTAssertEqual(repeated.payload(repeatedBy: ByteBuffer(string: next("%7B%22b%22%3A%5B1%2C2%5D%7D"))), Array(#"{"b":[1,2]}"#.utf8))
        XCTAssertEqual(repeated.payload(repeatedBy: ByteBuffer(string: next("12"))), Array("12".utf8))
        XCTAssertEqual(repeated.payload(repeatedBy: ByteBuffer(string: next(""))), [], "an empty message is the node's to refuse")
        XCTAssertEqual(repeated.payload(repeatedBy: ByteBuffer(string: base)), Array(#""a""#.utf8))
        for other in [
            base.replacingOccurrences(of: "/room/", with: "/hall/"),     // another channel
            base.replacingOccurrences(of: "/demo/demo/", with: "/demo/sub/"),
            base.replacingOccurrences(of: "/0/%22a", with: "/cb/%22a"),  // another callback
            base.replacingOccurrences(of: "uuid=u", with: "uuid=v"),     // another query
            base + "&ttl=1",
            next("1/2"),                                                 // a segment more
            next("1?x=2"),                                               // a query of its own
            next("%2"), next("%zz"), next("%FF"),                       // not a well-formed UTF-8 escape
            "/publish/demo/demo/0/room/0/1",                             // no query
            "",
        ] {
            XCTAssertNil(repeated.payload(repeatedBy: ByteBuffer(string: other)), other)
        }
    }

    func testTheRequestIsPreparedOnceOnTheFirstRepeat() throws {
        let node = Node()
        let repeated = try kept(base)
        XCTAssertNil(repeated.prepared, "nothing is prepared for a connection that publishes once")
        let first = try XCTUnwrap(repeated.repeated(by: ByteBuffer(string: base.replacingOccurrences(of: "%22a%22", with: "1")), node: node))
        XCTAssertEqual(first.payload, Array("1".utf8))
        XCTAssertEqual(first.prepared.request.channel, "room")
        XCTAssertEqual(first.prepared.request.meta, Array(#"{"k":1}"#.utf8))
        XCTAssertEqual(first.prepared.request.payload, [], "the kept message is not kept")
        let second = try XCTUnwrap(repeated.repeated(by: ByteBuffer(string: base), node: node))
        XCTAssertTrue(first.prepared === second.prepared)
        // Names that do not validate are never prepared: every repeat goes the general way.
        let wildcard = try kept("/publish/demo/demo/0/room.*/0/1")
        XCTAssertNil(wildcard.repeated(by: ByteBuffer(string: "/publish/demo/demo/0/room.*/0/2"), node: node))
        XCTAssertNil(wildcard.repeated(by: ByteBuffer(string: "/publish/demo/demo/0/room.*/0/3"), node: node))
    }

    func testRepeatedPublishesDeliverEachMessageAndAreAnsweredAsFreshOnes() throws {
        var limits = Limits()
        limits.maxMessageBytes = 200
        let node = EmbeddedNode(limits: limits)
        let publisher = try node.connect()
        let fresh = { (target: String) throws -> Response in try node.get(target) }
        let cursor = try node.handshake("room")
        let big = String(repeating: "x", count: 300)
        // A valid message, then each way a message alone can fail, then valid ones again; a
        // different channel in between is decoded afresh, and the next repeat is kept again.
        let messages = ["%22m0%22", "%7Bnot%20json", "%22\(big)%22", "", "%22m1%22", "%5B1%2C2%5D"]
        var targets = messages.map { "/publish/demo/demo/0/room/0/\($0)?uuid=p&store=0" }
        targets.insert("/publish/demo/demo/0/other/0/%22elsewhere%22?uuid=p&store=0", at: 4)
        var answers: [Response] = []
        for target in targets {
            try publisher.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            answers.append(try XCTUnwrap(publisher.response(), target))
        }
        for (target, answer) in zip(targets, answers) {
            let expected = try fresh(target)
            XCTAssertEqual(answer.status, expected.status, target)
            // The same answer but for the timetoken it carries.
            XCTAssertEqual(answer.json[0], expected.json[0], target)
            XCTAssertEqual(answer.json[1], expected.json[1], target)
        }
        XCTAssertEqual(answers.map(\.status), [200, 400, 400, 400, 200, 200, 200])
        XCTAssertEqual(answers.map { $0.json[1] }, [.string("Sent"), .string("Invalid JSON"), .string("Message Too Large"),
                                                    .string("Invalid JSON"), .string("Sent"), .string("Sent"), .string("Sent")])
        let handler = try publisher.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertEqual(handler.state.lastPublish?.prepared?.request.channel, "room", "kept and prepared again")
        let delivered = try node.get("/v2/subscribe/demo/room/0?tt=\(cursor)")
        let payloads = delivered.json["m"]?.arrayValue.compactMap { $0["d"] }
        // The connection's messages in order, then the fresh publishes of the same targets.
        let room: [JSON] = [.string("m0"), .string("m1"), .array([.number("1"), .number("2")])]
        XCTAssertEqual(payloads, room + room)
    }

    func testEveryRepeatedPublishIsAuthorizedAgain() throws {
        let authorizer = SwitchableAuthorizer()
        let node = EmbeddedNode(authorizer: authorizer)
        let publisher = try node.connect()
        for message in ["1", "2"] {
            try publisher.send("GET /publish/demo/demo/0/room/0/\(message)?uuid=p HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try publisher.response()?.status, 200)
        }
        let handler = try publisher.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNotNil(handler.state.lastPublish?.prepared, "the second publish was a repeat")
        authorizer.refusing.store(true, ordering: .relaxed)
        let request = "GET /publish/demo/demo/0/room/0/3?uuid=p HTTP/1.1\r\nHost: x\r\n\r\n"
        try publisher.send(request)
        let refused = try XCTUnwrap(publisher.response())
        XCTAssertEqual(refused.status, 403, "a revoked token is refused on the very next publish")
        let other = try node.connect()
        try other.send(request)
        let expected = try XCTUnwrap(other.response())
        XCTAssertEqual(refused.json[1], expected.json[1])
    }
}
