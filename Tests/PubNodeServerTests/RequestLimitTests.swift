import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// Requests that arrive too slowly or with too large a head are refused cleanly (408, 431) and
/// their connections closed; ordinary requests are untouched.
final class RequestLimitTests: XCTestCase {
    func testTooManyHeaderFieldsAre431() throws {
        let embedded = EmbeddedNode()
        let connection = try embedded.connect()
        var head = "GET /time/0 HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<150 { head += "X-\(index): v\r\n" }
        try connection.send(head + "\r\n")
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 431)
        XCTAssertEqual(response.json["error"], .bool(true))
        XCTAssertFalse(connection.isOpen)
        // A hundred fields are still fine.
        let fine = try embedded.connect()
        var ordinary = "GET /time/0 HTTP/1.1\r\nHost: x\r\n"
        for index in 0..<99 { ordinary += "X-\(index): v\r\n" }
        try fine.send(ordinary + "\r\n")
        XCTAssertEqual(try fine.response()?.status, 200)
    }

    func testAHugeHeadIsRefusedBeforeItIsParsed() throws {
        let embedded = EmbeddedNode()
        let connection = try embedded.connect()
        // 65,000 tiny fields (260 KB): refused once the head passes 64 KiB, not parsed field by field.
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n")
        let fields = String(repeating: "a:\r\n", count: 65_000)
        try connection.send(fields)
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 431)
        XCTAssertFalse(connection.isOpen)
    }

    func testBodiesLargerThanTheHeadLimitStillArrive() throws {
        var limits = Limits()
        limits.maxHeadBytes = limits.maxMessageBytes + 4096
        let embedded = EmbeddedNode(limits: limits)
        let message = "\"" + String(repeating: "a", count: 30_000) + "\""
        let response = try XCTUnwrap(embedded.post("/publish/demo/demo/0/c/0?uuid=u", body: Array(message.utf8)))
        XCTAssertEqual(response.status, 200, response.text)
        // And a GET publish of a message near the size limit fits in the head.
        let path = "/publish/demo/demo/0/c/0/%22" + String(repeating: "b", count: 32_000) + "%22"
        XCTAssertEqual(try embedded.get(path).status, 200)
    }

    func testARequestDrippedByteByByteIsCutOffAtItsDeadline() throws {
        let embedded = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for _ in 0..<15 {
            try connection.send("a")
            loop.advanceTime(by: .seconds(1))
        }
        XCTAssertNil(try connection.response(), "still inside its twenty seconds")
        for _ in 0..<10 {
            try connection.send("a")
            loop.advanceTime(by: .seconds(1))
        }
        let response = try XCTUnwrap(connection.response())
        XCTAssertEqual(response.status, 408)
        XCTAssertFalse(connection.isOpen)
    }

    func testARequestDrippedBehindAParkedPollClosesTheConnectionAtItsDeadline() throws {
        let embedded = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        let cursor = try embedded.handshake("behind")
        try connection.send("GET /v2/subscribe/demo/behind/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\nGET /time/0 HTTP/1.1\r\n")
        loop.advanceTime(by: .seconds(19))
        XCTAssertTrue(connection.isOpen, "parked, its follower still inside its twenty seconds")
        loop.advanceTime(by: .seconds(2))
        XCTAssertNil(try connection.response(), "nothing can be answered out of order")
        XCTAssertFalse(connection.isOpen)
    }

    func testAnEmptyLineAfterARequestIsNotARequestArriving() throws {
        let embedded = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n\r\n")
        XCTAssertEqual(try connection.response()?.status, 200)
        loop.advanceTime(by: .seconds(25))
        XCTAssertNil(try connection.response(), "no 408 for a stray CRLF (RFC 9112 section 2.2)")
        XCTAssertTrue(connection.isOpen)
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.response()?.status, 200)
    }

    func testAnIdleKeepAliveConnectionOrAParkedPollIsNotARequestArriving() throws {
        let embedded = EmbeddedNode()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.response()?.status, 200)
        loop.advanceTime(by: .seconds(60))
        let cursor = try embedded.handshake("c")
        try connection.send("GET /v2/subscribe/demo/c/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(100))
        XCTAssertNil(try connection.response(), "parked, not timed out as a slow request")
        XCTAssertTrue(connection.isOpen)
    }
}
