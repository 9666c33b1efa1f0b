import PubNodeTestSupport
import XCTest
@testable import PubNodeCore

final class MessageRingTests: XCTestCase {
    private func ring(capacity: Int, timetokens: [UInt64]) -> MessageRing {
        var ring = MessageRing(capacity: capacity)
        for tt in timetokens { ring.append(Fixture.message(tt, at: tt * 100)) }
        return ring
    }

    private func raw(_ slice: ArraySlice<PublishedMessage>) -> [UInt64] {
        slice.map(\.timetoken.rawValue)
    }

    func testEmptyRing() {
        let ring = MessageRing(capacity: 4)
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(ring.count, 0)
        XCTAssertNil(ring.newest)
        XCTAssertEqual(raw(ring.messages(after: .zero)), [])
        XCTAssertEqual(ring.capacity, 4)
    }

    func testAppendKeepsOrderBelowCapacity() {
        let ring = ring(capacity: 5, timetokens: [10, 20, 30])
        XCTAssertFalse(ring.isEmpty)
        XCTAssertEqual(ring.count, 3)
        XCTAssertEqual(ring.newest, Timetoken(30))
        XCTAssertEqual(raw(ring.messages(after: .zero)), [10, 20, 30])
    }

    func testCapacityEvictionKeepsTheLatestInOrder() {
        let ring = ring(capacity: 3, timetokens: [1, 2, 3, 4, 5])
        XCTAssertEqual(ring.count, 3)
        XCTAssertEqual(raw(ring.messages(after: .zero)), [3, 4, 5])
        XCTAssertEqual(ring.newest, Timetoken(5))
    }

    func testEvictionOverManyWrapsStaysSearchable() {
        let ring = ring(capacity: 4, timetokens: Array(1...103))
        XCTAssertEqual(raw(ring.messages(after: .zero)), [100, 101, 102, 103])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(101))), [102, 103])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(50))), [100, 101, 102, 103])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(103))), [])
    }

    func testMessagesAfterReturnsExactlyThoseNewerThanTheCursor() {
        let ring = ring(capacity: 10, timetokens: [10, 20, 30, 40, 50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(9))), [10, 20, 30, 40, 50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(10))), [20, 30, 40, 50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(25))), [30, 40, 50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(49))), [50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(50))), [])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(60))), [])
    }

    func testMessagesAfterMatchesALinearScanForEveryCursor() {
        let timetokens: [UInt64] = [3, 4, 9, 15, 16, 17, 40, 41, 90]
        let ring = ring(capacity: 16, timetokens: timetokens)
        for cursor in UInt64(0)...95 {
            for limit in [0, 1, 2, 5, Int.max] {
                let expected = Array(timetokens.filter { $0 > cursor }.prefix(limit))
                XCTAssertEqual(raw(ring.messages(after: Timetoken(cursor), limit: limit)), expected,
                               "cursor \(cursor) limit \(limit)")
            }
        }
    }

    func testMessagesAfterHonoursTheLimitOldestFirst() {
        let ring = ring(capacity: 10, timetokens: [10, 20, 30, 40, 50])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(15), limit: 2)), [20, 30])
        XCTAssertEqual(raw(ring.messages(after: .zero, limit: 0)), [])
        XCTAssertEqual(raw(ring.messages(after: Timetoken(40), limit: 3)), [50])
    }

    func testExpireDropsOnlyMessagesPublishedStrictlyBefore() {
        var ring = MessageRing(capacity: 10)
        ring.append(Fixture.message(1, at: 100))
        ring.append(Fixture.message(2, at: 200))
        ring.append(Fixture.message(3, at: 300))
        XCTAssertEqual(ring.expire(before: 100), 0)
        XCTAssertEqual(ring.expire(before: 200), 1)
        XCTAssertEqual(raw(ring.messages(after: .zero)), [2, 3])
        XCTAssertEqual(ring.expire(before: 301), 2)
        XCTAssertTrue(ring.isEmpty)
        XCTAssertNil(ring.newest)
        XCTAssertEqual(ring.expire(before: .max), 0)
    }

    func testAppendAfterExpiryAndEviction() {
        var ring = ring(capacity: 2, timetokens: [1, 2])
        ring.expire(before: 150)
        ring.append(Fixture.message(3, at: 300))
        ring.append(Fixture.message(4, at: 400))
        XCTAssertEqual(raw(ring.messages(after: .zero)), [3, 4])
    }
}
