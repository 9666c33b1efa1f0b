import Dispatch
import NIOCore
import NIOEmbedded
@testable import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import Synchronization
import XCTest

/// A connection's repeated long-poll skips decoding only when its target differs in `tt` alone,
/// and is still validated, authorized and answered exactly as a fresh one.
final class RepeatedSubscribeTests: XCTestCase {
    private let base = "/v2/subscribe/demo/a,b/0?uuid=u&tt=100&tr=1&filter-expr=x%20%3D%3D%201"

    private func kept(_ target: String) throws -> RepeatedSubscribe {
        let request = try PubNubRequest(method: .GET, uri: target)
        return try XCTUnwrap(RepeatedSubscribe(target: target, prepared: try Node().prepare(Router.subscribeRequest(request))))
    }

    func testOnlyTheCursorMayChange() throws {
        let repeated = try kept(base)
        let next = base.replacingOccurrences(of: "tt=100", with: "tt=17000000000000001")
        XCTAssertEqual(repeated.cursor(repeatedBy: ByteBuffer(string: next)), Timetoken(17_000_000_000_000_001))
        XCTAssertEqual(repeated.prepared.request.channels, ["a", "b"])
        XCTAssertEqual(repeated.prepared.request.uuid, "u")
        XCTAssertEqual(repeated.prepared.request.filter, "x == 1")
        XCTAssertEqual(repeated.cursor(repeatedBy: ByteBuffer(string: base)), Timetoken(100))
        for other in [
            base.replacingOccurrences(of: "a,b", with: "a,c"),             // another channel
            base.replacingOccurrences(of: "uuid=u", with: "uuid=v"),       // another uuid
            base.replacingOccurrences(of: "tr=1", with: "tr=2"),           // after the cursor
            base + "&auth=t",                                              // a parameter more
            base.replacingOccurrences(of: "tt=100", with: "tt=1%30"),      // an escaped cursor
            base.replacingOccurrences(of: "tt=100", with: "tt=-1"),
            base.replacingOccurrences(of: "tt=100", with: "tt="),
            base.replacingOccurrences(of: "tt=100", with: "tt=18446744073709551616"), // over UInt64
            base.replacingOccurrences(of: "tt=100", with: "tt=5&tt=6"),    // a second cursor
            base.replacingOccurrences(of: "tt=100", with: "tt=100&x=1"),   // a parameter after the cursor
            base.replacingOccurrences(of: "tt=100", with: "tt=1a0"),
            "/v2/subscribe/demo/a,b/0?uuid=u&tt=",                          // shorter than the kept one
            "",
            "/publish/demo/demo/0/a/0/1?uuid=u&tt=100&tr=1",
        ] {
            XCTAssertNil(repeated.cursor(repeatedBy: ByteBuffer(string: other)), other)
        }
    }

    func testAmbiguousOrSignedTargetsAreNotKept() throws {
        for target in ["/v2/subscribe/demo/a/0?tt=1&t%74=2", "/v2/subscribe/demo/a/0?tt=1&tt=2",
                       "/v2/subscribe/demo/a/0?uuid=u", "/v2/subscribe/demo/a/0?tt=0x1"] {
            XCTAssertNil(RepeatedSubscribe.cursor(in: target), target)
        }
        let signed = "/v2/subscribe/demo/a/0?tt=1&timestamp=1&signature=v2.abc"
        let request = try Router.subscribeRequest(try PubNubRequest(method: .GET, uri: signed))
        XCTAssertNil(RepeatedSubscribe(target: signed, prepared: try Node().prepare(request)))
    }

    func testRepeatedPollsOnOneConnectionDeliverEveryMessageInOrder() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        var cursor = try node.handshake("room")
        let first = cursor
        var received: [String] = []
        for index in 0..<3 {
            try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertNil(try connection.response(), "parked")
            try node.publish("room", "\"m\(index)\"")
            connection.runLoop()
            let answer = try XCTUnwrap(connection.response())
            received += answer.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue } ?? []
            cursor = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
        }
        XCTAssertEqual(received, ["m0", "m1", "m2"])
        // Only a decoded target is kept: still holding the first poll's cursor, it shows the
        // later polls were read from it rather than decoded.
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertEqual(handler.state.lastSubscribe?.prepared.request.cursor.description, first)
        // The same connection moving to another channel is decoded afresh.
        try connection.send("GET /v2/subscribe/demo/other/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        try node.publish("room", #""not here""#)
        try node.publish("other", #""here""#)
        connection.runLoop()
        XCTAssertEqual(try connection.response()?.json["m"]?[0]?["d"], .string("here"))
    }

    func testEveryRepeatedPollIsAuthorizedAndValidatedAgain() throws {
        let authorizer = SwitchableAuthorizer()
        let embedded = EmbeddedNode(authorizer: authorizer)
        let node = embedded.node
        let connection = try embedded.connect()
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        let cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try node.begin(PublishRequest(publishKey: "demo", subscribeKey: "demo", channel: "room", payload: Array("1".utf8)))
        connection.runLoop()
        let delivered = try XCTUnwrap(connection.response())
        XCTAssertEqual(delivered.status, 200)
        let next = try XCTUnwrap(delivered.json["t"]?["t"]?.stringValue)

        authorizer.refusing.store(true, ordering: .relaxed)
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try XCTUnwrap(connection.response())
        XCTAssertEqual(refused.status, 403, "a revoked token is refused on the very next poll")
        // Answered exactly as the same target on a fresh connection.
        let other = try embedded.connect()
        try other.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n")
        let expected = try XCTUnwrap(other.response())
        XCTAssertEqual(refused.status, expected.status)
        XCTAssertEqual(refused.json["error"], .bool(true))
        XCTAssertEqual(refused.json["message"], expected.json["message"])
    }

    /// A node with a keyset `sub-t` created at run time, a connection and its handshake's cursor on
    /// `room` there.
    private func handshakeOnCreatedKeyset() throws -> (node: EmbeddedNode, connection: Connection, cursor: String) {
        let node = EmbeddedNode(adminToken: "admin")
        try node.administer(.create(KeysetSpec(publishKey: "pub-t", subscribeKey: "sub-t", accessManager: false)))
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/sub-t/room/0?uuid=u&tt=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        return (node, connection, try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue))
    }

    func testARepeatedPollOnADeletedKeysetIsRefusedAsAFreshOne() throws {
        let (node, connection, cursor) = try handshakeOnCreatedKeyset()
        try connection.send("GET /v2/subscribe/sub-t/room/0?uuid=u&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try node.get("/publish/pub-t/sub-t/0/room/0/1")
        connection.runLoop()
        let next = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNotNil(handler.state.lastSubscribe, "the poll is kept")

        try node.administer(.delete(subscribeKey: "sub-t"))
        let poll = "GET /v2/subscribe/sub-t/room/0?uuid=u&tt=\(next) HTTP/1.1\r\nHost: x\r\n\r\n"
        try connection.send(poll)
        let refused = try XCTUnwrap(try connection.response())
        let fresh = try node.connect()
        try fresh.send(poll)
        let expected = try XCTUnwrap(try fresh.response())
        XCTAssertEqual(refused.status, expected.status)
        XCTAssertNotEqual(refused.status, 200)
        XCTAssertEqual(refused.text, expected.text)
    }

    /// A poll parked when its keyset is deleted is woken and answered at once, with nothing and its
    /// own cursor, instead of parking again where no publish reaches it until its deadline; its
    /// next poll is refused.
    func testAPollWokenByItsKeysetsDeletionIsAnsweredNotParkedAgain() throws {
        let (node, connection, cursor) = try handshakeOnCreatedKeyset()
        let poll = "GET /v2/subscribe/sub-t/room/0?uuid=u&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n"
        try connection.send(poll)
        XCTAssertNil(try connection.response(), "parked")

        // What deleting the keyset does to the node, on this thread: the tenants API would wake the
        // poll from its own task's thread, and the embedded loop may only be used from this one.
        XCTAssertNotNil(node.node.registry.remove("sub-t"))
        node.node.broker.close("sub-t")
        let answer = try XCTUnwrap(try connection.response(), "answered once woken, not parked again")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json["m"]?.arrayValue.count, 0)
        XCTAssertEqual(answer.json["t"]?["t"]?.stringValue, cursor, "nothing read: the cursor it came with")
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNil(handler.state.parked)
        try connection.send(poll)
        XCTAssertEqual(try XCTUnwrap(try connection.response()).status, 400, "the next poll is refused")
    }

    func testARepeatedPollRejoinsAfterALeaveWithinItsRefreshWindow() throws {
        let wall = ManualClock()
        let node = EmbeddedNode(wall: wall)
        let connection = try node.connect()
        var cursor = try node.handshake("room", query: "&uuid=u")
        let occupancy = { () throws -> String? in
            try node.get("/v2/presence/sub-key/demo/channel/room").json["occupancy"]?.stringValue
        }
        for round in 0..<2 {
            try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try occupancy(), "1", "round \(round)")
            // Another connection of the same client leaves: the clock has not moved, so only the
            // leave tells the next poll that its last refresh no longer stands.
            _ = try node.get("/v2/presence/sub-key/demo/channel/room/leave?uuid=u")
            XCTAssertEqual(try occupancy(), "0")
            try node.publish("room", "\"m\(round)\"")
            connection.runLoop()
            cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        }
        let handler = try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
        XCTAssertNotNil(handler.state.lastSubscribe?.presence, "the connection keeps its refresh")
    }

    func testARepeatedPollWithinTheWindowLeavesTheRefreshItsPredecessorMade() throws {
        let wall = ManualClock()
        let node = EmbeddedNode(wall: wall)
        let connection = try node.connect()
        var cursor = try node.handshake("room")
        for round in 0..<2 {
            try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
            wall.advance(seconds: 4)
            try node.publish("room", "\"m\(round)\"")
            connection.runLoop()
            cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        }
        // Refreshed at 0 s (the first poll, decoded afresh) and not at 4 s (inside the 5 s window of
        // the keyset's 300 s timeout): the uuid times out 300 s after the first poll.
        wall.advance(seconds: 292)
        XCTAssertEqual(node.node.sweepPresence().timedOut, 1)
    }
}
