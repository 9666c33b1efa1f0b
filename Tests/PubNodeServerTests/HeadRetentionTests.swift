import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import PubNodeTestSupport
import XCTest

/// A head's target is a view of the received bytes: read in place by a connection's repeated
/// long-polls and publishes, and never kept past its request's end, so a parked poll holds no
/// received buffer.
final class HeadRetentionTests: XCTestCase {
    /// Where `buffer`'s bytes (its slice's, for a slice) start in memory.
    private static func storage(_ buffer: ByteBuffer) -> UInt {
        buffer.withVeryUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    /// Whether `head`'s target bytes lie in `received`'s.
    private static func target(_ head: RequestHead, isIn received: ByteBuffer) -> Bool {
        (storage(received)..<(storage(received) + UInt(received.readableBytes))).contains(storage(head.target))
    }

    private func handler(of connection: Connection) throws -> PubNodeHTTPHandler {
        try connection.channel.pipeline.syncOperations.handler(type: PubNodeHTTPHandler.self)
    }

    func testAHeadsTargetIsASliceOfTheReceivedBytesUntilDetached() throws {
        var parser = HTTPRequestParser(maxHeadBytes: 1024)
        let received = ByteBuffer(string: "GET /v2/subscribe/demo/room/0?tt=15&uuid=u HTTP/1.1\r\nHost: a\r\n\r\n")
        parser.append(received)
        guard case .head(var head) = try XCTUnwrap(parser.next()) else { return XCTFail("no head") }
        XCTAssertEqual(head.uri, "/v2/subscribe/demo/room/0?tt=15&uuid=u")
        XCTAssertTrue(head.targets("/v2/subscribe/"))
        XCTAssertEqual(Self.storage(head.target), Self.storage(received) + 4, "sliced after `GET `, not copied")
        head.detachTarget()
        XCTAssertFalse(Self.target(head, isIn: received))
        XCTAssertEqual(head.uri, "/v2/subscribe/demo/room/0?tt=15&uuid=u")
    }

    func testAParkedPollKeepsNoHead() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("room")
        let connection = try node.connect()
        for round in 0..<2 {
            let next = round == 0 ? cursor : try XCTUnwrap(connection.response()?.json["t"]?["t"]?.stringValue)
            try connection.send("GET /v2/subscribe/demo/room/0?tt=\(next)&uuid=s HTTP/1.1\r\nHost: x\r\n\r\n")
            let state = try handler(of: connection).state
            XCTAssertNil(state.head, "round \(round): the parked poll's head (and its received bytes) is let go")
            XCTAssertEqual(state.answering?.isGET, true, "round \(round): what its answer needs is kept")
            try node.publish("room", "\(round)")
            connection.runLoop()
        }
        XCTAssertEqual(try connection.response()?.messagePayloads, [.number("1")], "the second poll, read as a repeat")
    }

    func testAHeadWaitingForItsBodyKeepsATargetOfItsOwn() throws {
        let node = EmbeddedNode()
        let connection = try node.connect()
        let received = ByteBuffer(string: "POST /publish/demo/demo/0/room/0?uuid=p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        try connection.channel.writeInbound(received)
        let head = try XCTUnwrap(handler(of: connection).state.head)
        XCTAssertFalse(Self.target(head, isIn: received), "the received buffer is not held")
        XCTAssertEqual(head.uri, "/publish/demo/demo/0/room/0?uuid=p")
        try connection.send(#""abc""#)
        let answer = try XCTUnwrap(connection.response())
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.json[1]?.stringValue, "Sent")
    }
}
