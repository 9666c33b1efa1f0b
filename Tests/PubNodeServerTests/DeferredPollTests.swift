import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// A poll that finds messages when it arrives is answered from its loop's answer queue, after the
/// rest of what the loop read in that turn.
final class DeferredPollTests: XCTestCase {
    private func poll(_ node: EmbeddedNode, on loop: EmbeddedEventLoop, after cursor: String) throws -> Connection {
        let connection = try node.connect(on: loop)
        try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor)&uuid=s HTTP/1.1\r\nHost: x\r\n\r\n")
        return connection
    }

    /// A node whose channel `room` holds the message "one" after the returned cursor (read on
    /// `channels`), and a loop for subscribers.
    private func oneMessageBehind(on channels: String = "room") throws -> (EmbeddedNode, EmbeddedEventLoop, String) {
        let node = EmbeddedNode()
        let cursor = try node.handshake(channels)
        try node.publish("room", #""one""#)
        return (node, EmbeddedEventLoop(), cursor)
    }

    func testAPublishReadInTheSameTurnJoinsTheAnswerOfAPollThatFoundMessages() throws {
        let (node, loop, cursor) = try oneMessageBehind()
        let subscriber = try poll(node, on: loop, after: cursor)
        // Read by the subscriber's loop before the turn's batch runs.
        let second = try node.publish("room", #""two""#)
        loop.run()
        let answer = try XCTUnwrap(try subscriber.response())
        XCTAssertEqual(answer.messagePayloads, [.string("one"), .string("two")], "one answer carries both")
        XCTAssertEqual(answer.json["t"]?["t"]?.stringValue, second)
        XCTAssertNil(try subscriber.response(), "and only one answer")
        XCTAssertEqual(node.router.operations.gauges.parkedPolls, 0, "never counted as parked")
    }

    func testAPollWhoseMessagesAreGoneWhenItsBatchRunsParksUntilTheNextMessage() throws {
        let wall = ManualClock()
        var limits = Limits()
        limits.bufferRetentionSeconds = 60
        let node = EmbeddedNode(limits: limits, wall: wall)
        let loop = EmbeddedEventLoop()
        let cursor = try node.handshake("room")
        try node.publish("room", #""old""#)
        let subscriber = try poll(node, on: loop, after: cursor)
        // The buffer lets the message go before the batch reads the channel again.
        wall.advance(nanoseconds: 61_000_000_000)
        let hub = try XCTUnwrap(node.node.hub())
        XCTAssertGreaterThan(hub.sweep().expiredMessages, 0)
        loop.run()
        XCTAssertNil(try subscriber.response(), "nothing left to answer with: it waits")
        XCTAssertEqual(hub.waiterCount(on: "room"), 1, "registered on its channel")
        XCTAssertEqual(node.router.operations.gauges.parkedPolls, 1)

        try node.publish("room", #""new""#)
        loop.run()
        XCTAssertEqual(try subscriber.response()?.messagePayloads, [.string("new")])
        XCTAssertEqual(hub.waiterCount(on: "room"), 0)
        XCTAssertEqual(node.router.operations.gauges.parkedPolls, 0)
    }

    func testAPollWhoseConnectionClosesBeforeItsBatchIsNeverAnswered() throws {
        let (node, loop, cursor) = try oneMessageBehind()
        let subscriber = try poll(node, on: loop, after: cursor)
        try subscriber.channel.close().wait()
        loop.run()
        XCTAssertNil(try subscriber.channel.readOutbound(as: ByteBuffer.self))
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "room"), 0)
        XCTAssertEqual(node.router.operations.gauges.parkedPolls, 0)
    }

    func testPollsOnSeveralChannelsAreStillAnsweredWhenRead() throws {
        let (node, loop, cursor) = try oneMessageBehind(on: "room,other")
        let subscriber = try node.connect(on: loop)
        try subscriber.send("GET /v2/subscribe/demo/room,other/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        let written = try XCTUnwrap(subscriber.channel.readOutbound(as: ByteBuffer.self), "written before the loop runs")
        let answer = try XCTUnwrap(Response.parse(written))
        XCTAssertEqual(answer.messagePayloads, [.string("one")])
    }
}
