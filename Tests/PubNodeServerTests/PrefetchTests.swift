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

    func testAPrefetchListKeepsWhatIsSetAndForgetsWhatIsCleared() {
        let first = UnsafeRawPointer(bitPattern: 0x1000), second = UnsafeRawPointer(bitPattern: 0x2040)
        var list = PrefetchList()
        list.set(0, first, bytes: 64)
        list.set(3, second, bytes: 100_000)
        XCTAssertEqual(list.address(0), first)
        XCTAssertNil(list.address(1))
        XCTAssertEqual(list.address(3), second)
        // Prefetching addresses that map nothing is harmless: a hint never faults.
        list.prefetch()
        list.set(0, nil, bytes: 0)
        XCTAssertNil(list.address(0))
        list.removeAll()
        XCTAssertNil(list.address(3))
    }

    func testAParkedPollIsPrefetchedWhole() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let cursor = try node.handshake("room")
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let parked = try XCTUnwrap(try handler(connection).state.parked)
        XCTAssertLessThanOrEqual(Prefetch.heapBytes(of: parked), ParkedPoll.prefetchBytes,
                                 "a parked poll grew past what the answer queue prefetches of it")
    }

    func testAConnectionNamesItsHandlerContextChannelAndPipeline() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let handler = try handler(connection)
        let context = try connection.channel.pipeline.syncOperations.context(handlerType: PubNodeHTTPHandler.self)
        XCTAssertEqual(handler.connectionPrefetch.address(0), Prefetch.address(of: context))
        XCTAssertEqual(handler.connectionPrefetch.address(1), Prefetch.address(of: connection.channel))
        XCTAssertEqual(handler.connectionPrefetch.address(2), Prefetch.address(of: connection.channel.pipeline))
        XCTAssertEqual(handler.connectionPrefetch.address(3), Prefetch.address(of: handler))
        XCTAssertGreaterThan(Prefetch.heapBytes(of: handler), 64)
    }

    func testAParkedPollNamesWhatItsRepeatReads() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        var cursor = try node.handshake("room")
        XCTAssertNil(try handler(connection).readPrefetch.address(0), "nothing kept yet")
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        for round in 0..<2 {
            let handler = try handler(connection)
            let kept = try XCTUnwrap(handler.state.lastSubscribe)
            let parked = try XCTUnwrap(handler.state.parked)
            XCTAssertEqual(handler.readPrefetch.address(0), Prefetch.address(of: kept), "round \(round)")
            XCTAssertEqual(handler.readPrefetch.address(1), kept.kept.bytesAddress, "round \(round)")
            XCTAssertNotNil(kept.kept.bytesAddress, "a target longer than a string holds inline")
            XCTAssertEqual(handler.readPrefetch.address(2), Prefetch.address(of: kept.prepared), "round \(round)")
            XCTAssertEqual(handler.readPrefetch.address(3), Prefetch.address(of: parked), "round \(round)")
            try node.publish("room", "\"m\(round)\"")
            connection.runLoop()
            let answer = try XCTUnwrap(try connection.response())
            cursor = try XCTUnwrap(answer.json["t"]?["t"]?.stringValue)
            try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        // A subscribe on another channel is kept in its place, and named from its first park.
        try node.publish("room", "\"last\"")
        connection.runLoop()
        _ = try connection.response()
        try connection.send("GET /v2/subscribe/demo/hall/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let handler = try handler(connection)
        let kept = try XCTUnwrap(handler.state.lastSubscribe)
        XCTAssertEqual(handler.readPrefetch.address(0), Prefetch.address(of: kept))
        XCTAssertEqual(handler.readPrefetch.address(2), Prefetch.address(of: kept.prepared))
        XCTAssertEqual(handler.readPrefetch.address(3), Prefetch.address(of: try XCTUnwrap(handler.state.parked)))
    }

    func testAClosedConnectionForgetsItsAddresses() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let cursor = try node.handshake("room")
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=u&tt=\(cursor)&tr=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        let handler = try handler(connection)
        XCTAssertNotNil(handler.readPrefetch.address(0))
        _ = try? connection.channel.pipeline.syncOperations.removeHandler(handler).wait()
        XCTAssertNil(handler.readPrefetch.address(0))
        XCTAssertNil(handler.connectionPrefetch.address(1))
    }
}
