import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

/// What a ring tells statistics and catch-ups: whether a cursor fell off its end, and its
/// recent publish rate.
final class MessageRingStatisticsTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testACursorBelowADroppedMessageHasMissedSomething() {
        var ring = MessageRing(capacity: 2)
        XCTAssertFalse(ring.missed(after: Timetoken(0)), "nothing dropped yet")
        for tt: UInt64 in [10, 20, 30] { ring.append(Fixture.message(tt, at: tt)) }
        XCTAssertEqual(ring.droppedThrough, Timetoken(10))
        XCTAssertTrue(ring.missed(after: Timetoken(5)))
        XCTAssertTrue(ring.missed(after: Timetoken(9)))
        XCTAssertFalse(ring.missed(after: Timetoken(10)), "a reader that saw 10 missed nothing")
        ring.expire(before: 25)
        XCTAssertEqual(ring.droppedThrough, Timetoken(20), "expiry drops count too")
        XCTAssertTrue(ring.missed(after: Timetoken(15)))
    }

    func testTheRecentRateCountsTheWindowOrTheSpanOfAFullRing() {
        var ring = MessageRing(capacity: 100)
        let now = 1_000 * second
        XCTAssertEqual(ring.recentRate(now: now, window: 10 * second), 0)
        // Five messages in the last ten seconds, one older.
        ring.append(Fixture.message(1, at: now - 30 * second))
        for index: UInt64 in 0..<5 { ring.append(Fixture.message(2 + index, at: now - (5 - index) * second)) }
        XCTAssertEqual(ring.recentRate(now: now, window: 10 * second), 0.5)
        // A full ring spanning two seconds: a hundred messages over two seconds.
        var busy = MessageRing(capacity: 100)
        for index: UInt64 in 0..<150 { busy.append(Fixture.message(index + 1, at: now - 3 * second + index * 20_000_000)) }
        XCTAssertEqual(busy.recentRate(now: now, window: 10 * second), 100 / 2.0, accuracy: 0.01)
    }

    func testAHubReportsAGapOnTheCatchUpThatCrossedIt() {
        var limits = Limits()
        limits.bufferSize = 3
        let hub = ChannelHub(subscribeKey: "demo", limits: limits, clock: TimetokenClock(wall: ManualClock()))
        let start = hub.currentTimetoken()
        var timetokens: [Timetoken] = []
        for index in 0..<5 {
            timetokens.append(hub.publish(Fixture.draft("c", "\(index)")).message.timetoken)
        }
        let late = hub.collect(Fixture.subscription(["c"]), after: start)
        XCTAssertEqual(late.deliveries.count, 3)
        XCTAssertTrue(late.missed)
        XCTAssertFalse(hub.collect(Fixture.subscription(["c"]), after: timetokens[1]).missed, "saw everything dropped")
        XCTAssertTrue(hub.collect(Fixture.subscription(["c", "d"]), after: start).missed, "the merged path reports it too")
        let statistics = hub.statistics(busiest: 1)
        XCTAssertEqual(statistics.channels, 1)
        XCTAssertEqual(statistics.busiest.first?.publishes, 5)
        XCTAssertEqual(statistics.busiest.first?.buffered, 3)
    }
}
