import NIOCore
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// The prefetch hints name the objects a connection's next wake and next poll read: a hint that
/// named the wrong object, or none, would silently cost the waits it is there to spare.
final class PrefetchTests: XCTestCase {
    private func handler(_ connection: Connection) throws -> PubNodeHTTPHandler {
        try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
    }

    private func poll(_ connection: Connection, _ cursor: String, channel: String = "room") throws {
        try connection.send("GET /v2/subscribe/demo/\(channel)/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    /// Checks that `handler`'s read list names its kept subscribe's objects and `parked`, whole.
    private func assertNamesKeptReads(_ handler: PubNodeHTTPHandler, parked: ParkedPoll, _ message: String,
                                      line: UInt = #line) throws {
        let kept = try XCTUnwrap(handler.state.lastSubscribe, message, line: line)
        let list = handler.readPrefetch
        XCTAssertEqual(list.address(0), Prefetch.address(of: kept), message, line: line)
        XCTAssertEqual(list.bytes(0), Prefetch.heapBytes(of: kept), message, line: line)
        // The target's own bytes, as many as it has (read here while the kept subscribe holds them).
        let target = Array(kept.kept.target.utf8)
        let address = try XCTUnwrap(list.address(1), message, line: line)
        XCTAssertEqual(Array(UnsafeRawBufferPointer(start: address, count: target.count)), target, message, line: line)
        XCTAssertEqual(list.bytes(1), target.count, message, line: line)
        XCTAssertEqual(list.address(2), Prefetch.address(of: kept.prepared), message, line: line)
        XCTAssertEqual(list.bytes(2), Prefetch.heapBytes(of: kept.prepared), message, line: line)
        XCTAssertEqual(list.address(3), Prefetch.address(of: parked), message, line: line)
        XCTAssertEqual(list.bytes(3), ParkedPoll.prefetchBytes, message, line: line)
    }

    func testAPrefetchListKeepsWhatIsSetAndForgetsWhatIsCleared() {
        let first = UnsafeRawPointer(bitPattern: 0x1000), second = UnsafeRawPointer(bitPattern: 0x2040)
        var list = PrefetchList()
        list.set(0, first, bytes: 64)
        list.set(3, second, bytes: 100_000)
        XCTAssertEqual(list.address(0), first)
        XCTAssertEqual(list.bytes(0), 64)
        XCTAssertNil(list.address(1))
        XCTAssertEqual(list.address(3), second)
        XCTAssertEqual(list.bytes(3), Prefetch.maxBytes, "at most maxBytes of one object")
        // Prefetching addresses that map nothing is harmless: a hint never faults.
        list.prefetch()
        list.set(0, nil, bytes: 0)
        XCTAssertNil(list.address(0))
        list.removeAll()
        XCTAssertNil(list.address(3))
        XCTAssertEqual(list.bytes(3), 0)
    }

    func testAParkedPollIsPrefetchedWhole() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try poll(connection, try node.handshake("room"))
        let parked = try XCTUnwrap(try handler(connection).state.parked)
        XCTAssertLessThanOrEqual(Prefetch.heapBytes(of: parked), ParkedPoll.prefetchBytes,
                                 "a parked poll grew past what the answer queue prefetches of it")
    }

    func testAConnectionNamesItsContextChannelPipelineAndHandler() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let handler = try handler(connection)
        let context = try connection.channel.pipeline.syncOperations.context(handlerType: PubNodeHTTPHandler.self)
        let list = handler.connectionPrefetch
        XCTAssertEqual(list.address(0), Prefetch.address(of: context))
        XCTAssertEqual(list.bytes(0), Prefetch.heapBytes(of: context))
        XCTAssertEqual(list.address(1), Prefetch.address(of: connection.channel))
        XCTAssertEqual(list.bytes(1), Prefetch.heapBytes(of: connection.channel))
        XCTAssertEqual(list.address(2), Prefetch.address(of: connection.channel.pipeline))
        XCTAssertEqual(list.bytes(2), Prefetch.heapBytes(of: connection.channel.pipeline))
        XCTAssertEqual(list.address(3), Prefetch.address(of: handler))
        XCTAssertEqual(list.bytes(3), Prefetch.heapBytes(of: handler))
        // The handler is several lines long; all of it is asked for.
        XCTAssertGreaterThanOrEqual(list.bytes(3), 512)
    }

    func testAParkedPollNamesWhatItsRepeatReads() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        var cursor = try node.handshake("room")
        XCTAssertNil(try handler(connection).readPrefetch.address(0), "nothing kept yet")
        try poll(connection, cursor)
        // Held weakly: a strong reference here would keep the poll from being parked in place.
        weak let first = try handler(connection).state.parked
        try assertNamesKeptReads(try handler(connection), parked: try XCTUnwrap(first), "first park")
        for round in 0..<2 {
            try node.publish("room", "\"m\(round)\"")
            connection.runLoop()
            cursor = try XCTUnwrap(try connection.response()?.json["t"]?["t"]?.stringValue)
            // Round 1 holds the last parked poll, so the repeat parks a new one, which is named.
            let held = round == 1 ? try handler(connection).state.lastSubscribe?.poll : nil
            try poll(connection, cursor)
            let parked = try XCTUnwrap(try handler(connection).state.parked)
            XCTAssertEqual(parked === first, round == 0, "round \(round): parked in place unless held")
            try assertNamesKeptReads(try handler(connection), parked: parked, "round \(round)")
            withExtendedLifetime(held) {}
        }
        // A subscribe on another channel is kept in its place, and named from its first park.
        try node.publish("room", "\"last\"")
        connection.runLoop()
        _ = try connection.response()
        try poll(connection, cursor, channel: "hall")
        let handler = try handler(connection)
        try assertNamesKeptReads(handler, parked: try XCTUnwrap(handler.state.parked), "another subscribe")
        XCTAssertTrue(handler.state.lastSubscribe?.kept.target.contains("/hall/") == true)
    }

    func testAClosedConnectionForgetsItsAddresses() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        try poll(connection, try node.handshake("room"))
        let handler = try handler(connection)
        XCTAssertNotNil(handler.readPrefetch.address(0))
        try connection.channel.pipeline.syncOperations.removeHandler(handler).wait()
        XCTAssertNil(handler.readPrefetch.address(0))
        XCTAssertNil(handler.connectionPrefetch.address(1))
    }
}
