import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// A publish answers the subscribers it woke on its own event loop before that loop reads on;
/// those on other loops are answered from their loop's batch.
final class LoopWakeTests: XCTestCase {
    private func poll(_ connection: Connection, _ cursor: String) throws {
        try connection.send("GET /v2/subscribe/demo/room/0?uuid=s&tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNil(try connection.response(), "parked")
    }

    /// What `connection` has written so far, read without turning its loop (unlike `response()`).
    private func written(_ connection: Connection) throws -> String {
        var text = ""
        while let chunk = try connection.channel.readOutbound(as: ByteBuffer.self) {
            text += String(buffer: chunk)
        }
        return text
    }

    private func publish(on connection: Connection, _ text: String) throws {
        try connection.send("GET /publish/demo/demo/0/room/0/%22\(text)%22?uuid=p HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    func testSubscribersOnThePublishersLoopAreAnsweredWithThePublish() throws {
        let node = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let cursor = try node.handshake("room")
        let subscribers = try (0..<3).map { _ in try node.connect(on: loop) }
        for subscriber in subscribers { try poll(subscriber, cursor) }
        let publisher = try node.connect(on: loop)
        try publish(on: publisher, "now")
        // No turn of the loop: the answers were written while the publish was handled.
        for subscriber in subscribers {
            let answer = try written(subscriber)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), answer)
            XCTAssertTrue(answer.hasSuffix(#""d":"now"}]}"#), answer)
        }
        XCTAssertTrue(try written(publisher).contains(#"[1,"Sent",""#))
        // The batch's own task, still scheduled, finds nothing left and writes nothing twice.
        loop.run()
        for subscriber in subscribers { XCTAssertEqual(try written(subscriber), "") }
    }

    func testSubscribersOnAnotherLoopWaitForTheirLoopsBatch() throws {
        let node = EmbeddedNode()
        let cursor = try node.handshake("room")
        let subscriber = try node.connect(on: EmbeddedEventLoop())
        try poll(subscriber, cursor)
        let publisher = try node.connect(on: EmbeddedEventLoop())
        try publish(on: publisher, "later")
        XCTAssertEqual(try written(subscriber), "", "woken from the publisher's loop: answered on its own")
        subscriber.runLoop()
        XCTAssertTrue(try written(subscriber).hasSuffix(#""d":"later"}]}"#))
    }
}
