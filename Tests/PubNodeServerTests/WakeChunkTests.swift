import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A loop answers a burst of waiting polls without a break up to its budget, then a chunk at a
/// time, reading its sockets in between.
final class WakeChunkTests: XCTestCase {
    /// `count` subscribers parked on one loop behind `cursor`.
    private func park(_ count: Int, on loop: EmbeddedEventLoop, node: EmbeddedNode) throws -> [Connection] {
        let cursor = try node.handshake("room")
        var subscribers: [Connection] = []
        for index in 0..<count {
            let connection = try node.connect(on: loop)
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor)&uuid=s\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            subscribers.append(connection)
        }
        XCTAssertEqual(node.node.hub()?.waiterCount(on: "room"), count)
        return subscribers
    }

    /// The messages of each answer written so far, in subscriber order.
    private func answered(_ subscribers: [Connection]) throws -> [[JSON?]] {
        try subscribers.compactMap { connection in
            try connection.channel.readOutbound(as: ByteBuffer.self).map { bytes in
                try XCTUnwrap(Response.parse(bytes)?.messagePayloads)
            }
        }
    }

    func testABurstWithinItsBudgetIsAnsweredWithoutABreak() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let subscribers = try park(2 * LoopWakeQueue.chunkSize + 10, on: loop, node: node)
        XCTAssertEqual(node.router.wakeQueues.queue(for: loop).maxUninterrupted, .milliseconds(100))
        try node.publish("room", #""one""#)
        loop.run()
        let all = try answered(subscribers)
        XCTAssertEqual(all.count, subscribers.count, "the loop's clock did not move: one go")
        XCTAssertTrue(all.allSatisfy { $0 == [.string("one")] })
    }

    func testPastItsBudgetAPublishReadBetweenTwoChunksReachesThePollsNotYetAnswered() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let subscribers = try park(LoopWakeQueue.chunkSize + 10, on: loop, node: node)
        node.router.wakeQueues.queue(for: loop).maxUninterrupted = .zero
        try node.publish("room", #""one""#)
        loop.run()
        let first = try answered(subscribers)
        XCTAssertEqual(first.count, LoopWakeQueue.chunkSize, "one chunk, then the loop goes back to its sockets")
        XCTAssertTrue(first.allSatisfy { $0 == [.string("one")] })
        // Read while the rest wait: the rest answer with it.
        try node.publish("room", #""two""#)
        loop.advanceTime(by: LoopWakeQueue.yieldDelay)
        let rest = try answered(subscribers)
        XCTAssertEqual(rest.count, 10)
        XCTAssertTrue(rest.allSatisfy { $0 == [.string("one"), .string("two")] })
        loop.advanceTime(by: .seconds(1))
        XCTAssertEqual(try answered(subscribers).count, 0, "each poll answered once")
        XCTAssertEqual(node.router.operations.gauges.parkedPolls, 0)
    }
}
