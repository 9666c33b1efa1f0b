import Dispatch
@testable import PubNodeCore
import PubNodeTestSupport
import Synchronization
import XCTest

final class TimetokenClockTests: XCTestCase {
    private let tick = ManualClock.start / 100

    func testNextIsWallNanosecondsDividedBy100() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        XCTAssertEqual(clock.next(), Timetoken(17_000_000_001_234_567))
        wall.advance(seconds: 1)
        XCTAssertEqual(clock.next().rawValue, (ManualClock.start + 1_000_000_000) / 100)
        wall.advance(nanoseconds: 250)
        XCTAssertEqual(clock.next().rawValue, (ManualClock.start + 1_000_000_250) / 100)
    }

    func testNowNanosecondsReadsTheInjectedWallClock() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        XCTAssertEqual(clock.nowNanoseconds(), ManualClock.start)
        wall.advance(nanoseconds: 7)
        XCTAssertEqual(clock.nowNanoseconds(), ManualClock.start + 7)
    }

    func testStrictlyIncreasingWhileWallClockStandsStill() {
        let clock = TimetokenClock(wall: ManualClock())
        let issued = (0..<1_000).map { _ in clock.next().rawValue }
        XCTAssertEqual(issued, Array(tick..<(tick + 1_000)))
    }

    func testStrictlyIncreasingWithinTheSame100Nanoseconds() {
        let wall = ManualClock(1_700_000_000_000_000_000)
        let clock = TimetokenClock(wall: wall)
        let first = clock.next()
        wall.advance(nanoseconds: 50)
        let second = clock.next()
        wall.advance(nanoseconds: 49)
        let third = clock.next()
        XCTAssertEqual(first.rawValue, 17_000_000_000_000_000)
        XCTAssertEqual(second.rawValue, first.rawValue + 1)
        XCTAssertEqual(third.rawValue, first.rawValue + 2)
    }

    func testStrictlyIncreasingWhenWallClockStepsBack() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        let before = clock.next()
        wall.rewind(nanoseconds: 10 * 1_000_000_000)
        let afterStepBack = clock.next()
        let again = clock.next()
        XCTAssertEqual(afterStepBack.rawValue, before.rawValue + 1)
        XCTAssertEqual(again.rawValue, before.rawValue + 2)
        // Once the wall clock passes the issued values again, it drives them once more.
        wall.advance(seconds: 20)
        XCTAssertEqual(clock.next().rawValue, (ManualClock.start + 10 * 1_000_000_000) / 100)
    }

    func testCurrentDoesNotIssueAValueThatNextRepeats() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        let present = clock.current()
        XCTAssertEqual(present.rawValue, tick, "current() is the wall time in ticks")
        XCTAssertEqual(clock.current(), present, "current() issues nothing: asking again gives the same value")
        let issued = clock.next()
        XCTAssertGreaterThan(issued, present)
        XCTAssertEqual(issued.rawValue, tick + 1)
    }

    func testCurrentAfterNextIsNotBelowIssuedValuesAndNextStaysAbove() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        var last = Timetoken.zero
        for _ in 0..<5 { last = clock.next() }
        let present = clock.current()
        XCTAssertGreaterThanOrEqual(present, last)
        XCTAssertGreaterThan(clock.next(), present)
    }

    func testCurrentWhenWallClockStepsBackReportsTheFloor() {
        let wall = ManualClock()
        let clock = TimetokenClock(wall: wall)
        let issued = clock.next()
        wall.rewind(nanoseconds: 1_000_000)
        let present = clock.current()
        XCTAssertEqual(present, issued, "current() never goes below what was already issued")
        XCTAssertGreaterThan(clock.next(), present)
    }

    func testAdvanceRaisesTheFloor() {
        let clock = TimetokenClock(wall: ManualClock())
        let floor = tick + 5_000
        XCTAssertEqual(clock.advance(to: floor), Timetoken(floor))
        XCTAssertEqual(clock.next(), Timetoken(floor + 1))
        XCTAssertEqual(clock.current(), Timetoken(floor + 1))
    }

    func testAdvanceNeverLowersTheFloor() {
        let clock = TimetokenClock(wall: ManualClock())
        let issued = clock.next()
        XCTAssertEqual(clock.advance(to: 5), issued, "a lower floor leaves the clock where it was")
        XCTAssertEqual(clock.next(), Timetoken(issued.rawValue + 1))
    }

    func testConcurrentNextCallsAreAllDistinct() {
        let clock = TimetokenClock(wall: ManualClock())
        let perThread = 10_000
        let results = Mutex<[[UInt64]]>(Array(repeating: [], count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var mine: [UInt64] = []
            mine.reserveCapacity(perThread)
            for _ in 0..<perThread { mine.append(clock.next().rawValue) }
            results.withLock { $0[thread] = mine }
        }
        let all = results.withLock { $0 }
        XCTAssertEqual(Set(all.joined()).count, 4 * perThread)
        for (thread, values) in all.enumerated() {
            XCTAssertEqual(values.count, perThread)
            XCTAssertTrue(zip(values, values.dropFirst()).allSatisfy { $0 < $1 },
                          "thread \(thread) saw its own values go backwards")
        }
        // The wall clock stood still, so exactly the next 40,000 ticks were handed out.
        XCTAssertEqual(all.joined().min(), tick)
        XCTAssertEqual(all.joined().max(), tick + UInt64(4 * perThread) - 1)
    }

    func testSystemWallClockReadsRealTime() {
        // 2020-09-13 in nanoseconds: any real clock today is past it.
        XCTAssertGreaterThan(SystemWallClock().nowNanoseconds(), 1_600_000_000_000_000_000)
        XCTAssertGreaterThan(TimetokenClock().next().rawValue, 16_000_000_000_000_000)
    }
}
