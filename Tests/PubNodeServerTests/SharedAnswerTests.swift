import NIOEmbedded
import XCTest

/// Subscribers woken together on one event loop share identical answers; others still get their own.
final class SharedAnswerTests: XCTestCase {
    func testSubscribersOnOneLoopWithTheSameCursorGetIdenticalAnswersAndOthersTheirOwn() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let early = try node.handshake("room")
        try node.publish("room", #""before""#)
        let cursor = try node.handshake("room")
        var same: [Connection] = []
        for _ in 0..<3 {
            let connection = try node.connect(on: loop)
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
            same.append(connection)
        }
        let behind = try node.connect(on: loop)
        try behind.send("GET /v2/subscribe/demo/room/0?tt=\(early) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try behind.response()?.json["m"]?.arrayValue.count, 1, "a stale cursor is answered at once")
        try behind.send("GET /v2/subscribe/demo/room,other/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        for connection in same { XCTAssertNil(try connection.response()) }
        XCTAssertNil(try behind.response())

        let timetoken = try node.publish("room", #""shared""#)
        loop.run()
        let answers = try same.map { try XCTUnwrap($0.response()) }
        XCTAssertEqual(Set(answers.map(\.body)).count, 1, "same channel and cursor: byte-identical answers")
        XCTAssertEqual(answers[0].json["m"]?[0]?["d"], .string("shared"))
        XCTAssertEqual(answers[0].json["t"]?["t"]?.stringValue, timetoken)
        let multiplexed = try XCTUnwrap(behind.response())
        XCTAssertEqual(multiplexed.json["m"]?.arrayValue.map { $0["d"] }, [.string("shared")])
        for connection in same + [behind] { XCTAssertTrue(connection.isOpen) }
    }
}
