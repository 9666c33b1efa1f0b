import NIOCore
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A connection's repeated long-poll parks the parked poll its last one used again, in place when
/// nothing else holds it; never one a late wake could still reach, nor one whose keyset was
/// replaced.
final class ParkedPollReuseTests: XCTestCase {
    private func poll(_ connection: Connection, _ cursor: String, channel: String = "room",
                      key: String = "demo") throws {
        try connection.send("GET /v2/subscribe/\(key)/\(channel)/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    private func handler(_ connection: Connection) throws -> PubNodeHTTPHandler {
        try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
    }

    /// Publishes `text` on `channel` and returns the connection's answer's messages and cursor.
    private func deliver(_ node: EmbeddedNode, _ connection: Connection, _ text: String,
                         channel: String = "room") throws -> (messages: [String], cursor: String) {
        try node.publish(channel, "\"\(text)\"")
        connection.runLoop()
        let answer = try XCTUnwrap(connection.response(), "answered")
        XCTAssertEqual(answer.status, 200)
        let messages = answer.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue } ?? []
        return (messages, try XCTUnwrap(answer.json["t"]?["t"]?.stringValue))
    }

    func testARepeatedPollParksItsLastParkedPollAgain() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        var cursor = try node.handshake("room")
        try poll(connection, cursor)
        // Held weakly: a strong reference here would be one more holder.
        weak let first = try handler(connection).state.parked
        XCTAssertNotNil(first)
        var received: [String] = []
        for round in 0..<3 {
            let (messages, next) = try deliver(node, connection, "m\(round)")
            received += messages
            cursor = next
            try poll(connection, cursor)
            let parked = try XCTUnwrap(try handler(connection).state.parked, "round \(round)")
            XCTAssertTrue(parked === first, "round \(round): the same parked poll")
            XCTAssertEqual(parked.cursor.description, cursor)
            XCTAssertEqual(node.node.hub()?.waiterCount(on: "room"), 1, "registered once")
        }
        XCTAssertEqual(received, ["m0", "m1", "m2"])
        // Parked again, it still answers a publish, and only once.
        XCTAssertEqual(try deliver(node, connection, "m3").messages, ["m3"])
        XCTAssertNil(try connection.response())
    }

    func testAParkedPollALateWakeCanStillReachIsNotParkedAgain() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try poll(connection, try node.handshake("room"))
        // A publisher that took the poll from its channel before it was unregistered still holds it.
        let late = try XCTUnwrap(try handler(connection).state.parked)
        let cursor = try deliver(node, connection, "m0").cursor
        try poll(connection, cursor)
        let parked = try XCTUnwrap(try handler(connection).state.parked)
        XCTAssertFalse(parked === late, "a new parked poll")
        XCTAssertEqual(parked.cursor.description, cursor)
        // The late wake (its claim allowed again, as after a spurious wake) finds its poll answered:
        // nothing is written, and the new poll stays parked.
        late.rearm()
        late.wake()
        connection.runLoop()
        XCTAssertNil(try connection.response())
        XCTAssertTrue(try handler(connection).state.parked === parked)
        XCTAssertEqual(try deliver(node, connection, "m1").messages, ["m1"])
    }

    func testAPollWhoseKeysetWasReplacedListensOnTheNewOne() throws {
        let node = EmbeddedNode(adminToken: "admin")
        let spec = KeysetSpec(publishKey: "pub-t", subscribeKey: "sub-t", accessManager: false)
        try node.administer(.create(spec))
        let connection = try node.connect()
        try connection.send("GET /v2/subscribe/sub-t/room/0?uuid=u&tt=0 HTTP/1.1\r\nHost: x\r\n\r\n")
        var cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        try poll(connection, cursor, key: "sub-t")
        _ = try node.get("/publish/pub-t/sub-t/0/room/0/1")
        connection.runLoop()
        cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
        // Held weakly: a strong reference here would itself keep the poll from being parked in place.
        weak let old = try handler(connection).state.lastSubscribe?.poll
        XCTAssertNotNil(old)

        try node.administer(.delete(subscribeKey: "sub-t"))
        try node.administer(.create(spec))
        try poll(connection, cursor, key: "sub-t")
        XCTAssertFalse(try handler(connection).state.parked === old, "a new long-poll")
        XCTAssertEqual(try node.get("/publish/pub-t/sub-t/0/room/0/2").status, 200)
        connection.runLoop()
        let answer = try XCTUnwrap(try connection.response(), "the new keyset's publish reaches the poll")
        XCTAssertEqual(answer.json["m"]?[0]?["d"], .number("2"))
    }

    func testAPollParkedAgainAfterATimeoutOrAnAnswerItFoundStartsAfresh() throws {
        let node = EmbeddedNode.clocked(longPollSeconds: 5, idleSeconds: 60)
        let connection = try node.connect()
        let loop = connection.channel.embeddedEventLoop
        var cursor = try node.handshake("room")
        try poll(connection, cursor)
        weak let first = try handler(connection).state.parked
        XCTAssertNotNil(first)
        let parkedAgain = { (when: String) throws in
            let parked = try XCTUnwrap(try self.handler(connection).state.parked, when)
            XCTAssertTrue(parked === first, when)
            XCTAssertFalse(parked.isDeferred, when)
            XCTAssertEqual(parked.deadline, loop.now + .seconds(5), when)
            XCTAssertEqual(node.node.hub()?.waiterCount(on: "room"), 1, when)
        }
        // Answered by its deadline, empty.
        loop.advanceTime(by: .seconds(5))
        XCTAssertEqual(try XCTUnwrap(connection.response()).json["m"], .array([]))
        try poll(connection, cursor)
        try parkedAgain("after a timeout")
        // Answered at once with what it found when it arrived (through the answer queue).
        let afterFirst = try deliver(node, connection, "m0")
        XCTAssertEqual(afterFirst.messages, ["m0"])
        let next = try node.publish("room", "\"m1\"")
        try poll(connection, afterFirst.cursor)
        let found = try XCTUnwrap(connection.response())
        XCTAssertEqual(found.json["m"]?[0]?["d"], .string("m1"))
        cursor = try XCTUnwrap(found.json["t"]?["t"]?.stringValue)
        XCTAssertEqual(cursor, next)
        try poll(connection, cursor)
        try parkedAgain("after an answer it found on arrival")
        XCTAssertEqual(try deliver(node, connection, "m2").messages, ["m2"])
    }

    func testAPollOnSeveralChannelsWithAFilterIsParkedAgainAndStillFiltered() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let filter = "x%20%3D%3D%201"
        var cursor = try node.handshake("a,b")
        let send = { (cursor: String) throws in
            try connection.send("GET /v2/subscribe/demo/a,b/0?uuid=u&tt=\(cursor)&filter-expr=\(filter) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        try send(cursor)
        weak let first = try handler(connection).state.parked
        XCTAssertNotNil(first)
        for (round, channel) in ["a", "b", "a"].enumerated() {
            try node.publish(channel, "\"skipped\"", query: "&meta=%7B%22x%22%3A2%7D")
            connection.runLoop()
            XCTAssertNil(try connection.response(), "round \(round): filtered out")
            try node.publish(channel, "\"\(channel)\(round)\"", query: "&meta=%7B%22x%22%3A1%7D")
            connection.runLoop()
            let answer = try XCTUnwrap(connection.response(), "round \(round)")
            XCTAssertEqual(answer.json["m"]?.arrayValue.compactMap { $0["d"]?.stringValue }, ["\(channel)\(round)"])
            cursor = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
            try send(cursor)
            XCTAssertTrue(try handler(connection).state.parked === first, "round \(round)")
            XCTAssertEqual(node.node.hub()?.waiterCount(on: "a"), 1, "round \(round)")
            XCTAssertEqual(node.node.hub()?.waiterCount(on: "b"), 1, "round \(round)")
        }
    }

    func testAClosedConnectionLetsGoOfItsHandler() throws {
        let node = EmbeddedNode()
        weak var released: PubNodeHTTPHandler?
        try {
            let connection = try node.connect()
            try poll(connection, try node.handshake("room"))
            let cursor = try deliver(node, connection, "m0").cursor
            try poll(connection, cursor)
            released = try handler(connection)
            XCTAssertNotNil(released?.state.lastSubscribe?.poll)
            try connection.channel.close().wait()
            connection.runLoop()
        }()
        XCTAssertNil(released, "its kept parked poll refers back to the handler: the cycle is broken")
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "room") ?? 0, 0)
    }
}
