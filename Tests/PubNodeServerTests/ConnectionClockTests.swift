import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// The connection's idle clock, on an injected event-loop clock (the request-arrival clock is in
/// `RequestLimitTests`).
final class ConnectionClockTests: XCTestCase {
    /// Long-polls of 5 s, connections idle after 8 s (checked every 2 s).
    private func node() -> EmbeddedNode { .clocked() }

    func testASilentConnectionClosesAfterItsIdleTimeAndNotBefore() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        loop.advanceTime(by: .milliseconds(7_900))
        XCTAssertTrue(connection.isOpen, "silent for less than the idle time")
        loop.advanceTime(by: .milliseconds(2_100))
        XCTAssertFalse(connection.isOpen, "closed within a quarter idle time after it")
    }

    func testEveryRequestRestartsTheIdleTime() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        for _ in 0..<5 {
            loop.advanceTime(by: .seconds(7))
            try connection.send("GET /time/0 HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try connection.response()?.status, 200)
        }
        XCTAssertTrue(connection.isOpen, "35 s old, never silent for 8 s")
    }

    func testAParkedPollIsNotIdleAndItsAnswerRestartsTheIdleTime() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        let cursor = try embedded.handshake("idle")
        loop.advanceTime(by: .seconds(6))
        try connection.send("GET /v2/subscribe/demo/idle/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        // Parked past the connection's 8 s of silence since connecting: still open.
        loop.advanceTime(by: .milliseconds(4_900))
        XCTAssertNil(try connection.response())
        XCTAssertTrue(connection.isOpen)
        loop.advanceTime(by: .milliseconds(200))
        XCTAssertEqual(try connection.response()?.status, 200, "the long-poll's own timeout answers it")
        loop.advanceTime(by: .milliseconds(7_800))
        XCTAssertTrue(connection.isOpen, "an answer is activity: less than 8 s since")
        loop.advanceTime(by: .seconds(3))
        XCTAssertFalse(connection.isOpen)
    }
}
