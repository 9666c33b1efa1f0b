import NIOCore
import NIOEmbedded
import PubNodeCore
@testable import PubNodeServer
import XCTest

/// One clock per event loop answers long-polls at their deadlines and closes idle connections,
/// whatever the order connections come and go in.
final class LoopClockTests: XCTestCase {
    /// Long-polls of 5 s, connections idle after 8 s (checked every 2 s).
    private func node() -> EmbeddedNode { .clocked() }

    private func clock(_ embedded: EmbeddedNode, _ loop: EmbeddedEventLoop) -> LoopClock {
        embedded.router.wakeQueues.queue(for: loop).clock
    }

    /// `count` connections on `loop`, each parking a long-poll on `c` from `cursor`, one a second
    /// from now.
    private func parkOneASecond(_ count: Int, _ embedded: EmbeddedNode, _ loop: EmbeddedEventLoop,
                                from cursor: String) throws -> [Connection] {
        try (0..<count).map { index in
            let connection = try embedded.connect(on: loop)
            try connection.send("GET /v2/subscribe/demo/c/0?tt=\(cursor)&uuid=u\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            loop.advanceTime(by: .seconds(1))
            return connection
        }
    }

    func testEachPollIsAnsweredAtItsOwnDeadlineWhileOthersComeAndGo() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let cursor = try embedded.handshake("c")
        let connections = try parkOneASecond(4, embedded, loop, from: cursor)
        XCTAssertEqual(clock(embedded, loop).count, 4)
        for connection in connections { XCTAssertNil(try connection.response(), "parked") }
        // Parked at 0, 1, 2 and 3 s; the second (a middle slot) leaves.
        // Closed, not finished: finishing an embedded channel drains its loop's scheduled tasks.
        try connections[1].channel.close().wait()
        XCTAssertEqual(clock(embedded, loop).count, 3)
        loop.advanceTime(by: .seconds(1)) // 5 s
        XCTAssertEqual(try connections[0].response()?.json["t"]?["t"]?.stringValue, cursor, "parked at 0 s")
        XCTAssertNil(try connections[2].response())
        XCTAssertNil(try connections[3].response())
        loop.advanceTime(by: .seconds(2)) // 7 s
        XCTAssertEqual(try connections[2].response()?.status, 200, "parked at 2 s")
        XCTAssertNil(try connections[3].response())
        loop.advanceTime(by: .seconds(1)) // 8 s
        XCTAssertEqual(try connections[3].response()?.status, 200, "parked at 3 s")
    }

    func testAConnectionOpenedBetweenTicksIsNotClosedBeforeItsIdleTime() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let first = try embedded.connect(on: loop)
        loop.advanceTime(by: .milliseconds(1_900))
        let late = try embedded.connect(on: loop)
        loop.advanceTime(by: .milliseconds(7_900)) // 9.8 s: 7.9 s after the late one connected
        XCTAssertTrue(late.isOpen, "silent for less than its idle time")
        loop.advanceTime(by: .seconds(2)) // 11.8 s: both past one and a quarter idle times
        XCTAssertFalse(first.isOpen)
        XCTAssertFalse(late.isOpen)
    }

    func testIdleChecksComeEveryQuarterIdleTimeInWholeSecondsAndNeverCloseEarly() {
        let loop = EmbeddedEventLoop()
        // (idle seconds, seconds between checks, quiet checks before closing)
        for (idle, ticks, quiet) in [(8, 2, 4), (310, 78, 4), (2, 1, 2), (5, 2, 3), (1, 1, 1), (0, 0, 0)] {
            let clock = LoopClock(loop: loop, idleConnectionSeconds: idle)
            XCTAssertEqual(clock.idleCheckPeriod, ticks == 0 ? nil : .seconds(Int64(ticks)), "idle \(idle)")
            XCTAssertEqual(clock.quietChecksBeforeClose, quiet, "idle \(idle)")
            XCTAssertGreaterThanOrEqual(ticks * quiet, idle, "never closed before its idle time")
        }
    }

    func testAShortIdleTimeIsKept() throws {
        let embedded = EmbeddedNode.clocked(longPollSeconds: 1, idleSeconds: 2)
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        loop.advanceTime(by: .milliseconds(1_900))
        XCTAssertTrue(connection.isOpen)
        loop.advanceTime(by: .seconds(2))
        XCTAssertFalse(connection.isOpen, "closed within two check periods after its idle time")
    }

    func testTheClockStopsWithTheLastConnectionAndStartsAgain() throws {
        let embedded = node()
        let loop = EmbeddedEventLoop()
        let connection = try embedded.connect(on: loop)
        XCTAssertEqual(clock(embedded, loop).count, 1)
        try connection.channel.close().wait()
        XCTAssertEqual(clock(embedded, loop).count, 0)
        let cursor = try embedded.handshake("again")
        let next = try embedded.connect(on: loop)
        try next.send("GET /v2/subscribe/demo/again/0?tt=\(cursor) HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(5))
        XCTAssertEqual(try next.response()?.status, 200, "a restarted clock answers at the deadline")
    }

    func testATickVisitsOnlyTheConnectionsWhoseDeadlineItReached() throws {
        // Idle checks every 15 s: none within this test.
        let embedded = EmbeddedNode.clocked(longPollSeconds: 5, idleSeconds: 60)
        let loop = EmbeddedEventLoop()
        let clock = clock(embedded, loop)
        let (a, b) = (try embedded.handshake("a"), try embedded.handshake("b"))
        let first = try embedded.connect(on: loop), second = try embedded.connect(on: loop)
        let idle = try embedded.connect(on: loop)
        try first.send("GET /v2/subscribe/demo/a/0?tt=\(a)&uuid=u1 HTTP/1.1\r\nHost: x\r\n\r\n")
        try second.send("GET /v2/subscribe/demo/a/0?tt=\(a)&uuid=u2 HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(2))
        XCTAssertEqual(clock.visited, 0, "nothing due at 1 s and 2 s")
        let late = try embedded.connect(on: loop)
        try late.send("GET /v2/subscribe/demo/b/0?tt=\(b)&uuid=u3 HTTP/1.1\r\nHost: x\r\n\r\n")
        loop.advanceTime(by: .seconds(1)) // 3 s
        XCTAssertEqual(clock.visited, 0)
        // Answered by a publish before its deadline (7 s), and then silent.
        try embedded.publish("b", "1")
        XCTAssertEqual(try late.response()?.status, 200)
        loop.advanceTime(by: .seconds(2)) // 5 s
        XCTAssertEqual(clock.visited, 2, "the two polls parked at 0 s, and no other connection")
        XCTAssertEqual(try first.response()?.status, 200)
        XCTAssertEqual(try second.response()?.status, 200)
        loop.advanceTime(by: .seconds(1)) // 6 s
        XCTAssertEqual(clock.visited, 0)
        loop.advanceTime(by: .seconds(1)) // 7 s: the answered poll's deadline, visited to no effect
        XCTAssertEqual(clock.visited, 1)
        XCTAssertNil(try late.response())
        XCTAssertTrue(late.isOpen)
        XCTAssertTrue(idle.isOpen)
        loop.advanceTime(by: .seconds(1))
        XCTAssertEqual(clock.visited, 0, "visited once")
    }

    func testAConnectionMovedIntoALeaversSlotIsAnsweredAtItsOwnDeadline() throws {
        // Idle checks every 15 s: every tick here visits only what is due.
        let embedded = EmbeddedNode.clocked(longPollSeconds: 5, idleSeconds: 60)
        let loop = EmbeddedEventLoop()
        let connections = try parkOneASecond(3, embedded, loop, from: try embedded.handshake("c"))
        // Parked at 0, 1 and 2 s; the first leaves, and the last connection takes its slot.
        try connections[0].channel.close().wait()
        loop.advanceTime(by: .seconds(3)) // 6 s
        XCTAssertEqual(try connections[1].response()?.status, 200, "parked at 1 s")
        XCTAssertNil(try connections[2].response())
        loop.advanceTime(by: .seconds(1)) // 7 s
        XCTAssertEqual(try connections[2].response()?.status, 200, "parked at 2 s, answered from the slot it moved into")
    }
}
