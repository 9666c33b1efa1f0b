@testable import PubNodeCore
import PubNodeTestSupport
import XCTest

/// A topic's waiter table keeps its size between messages, and a sweep gives back what a shrunk
/// audience no longer needs.
final class WaiterSetTests: XCTestCase {
    func testTakingEveryWaiterKeepsTheTableForTheirReturn() {
        var set = WaiterSet()
        let waiters = (0..<1_000).map { _ in TestWaiter() }
        for waiter in waiters { set.insert(waiter) }
        let grown = set.capacity
        var woken: [any Waiter] = []
        set.takeAll(into: &woken)
        XCTAssertEqual(Set(woken.map { ObjectIdentifier($0) }), Set(waiters.map { ObjectIdentifier($0) }))
        XCTAssertTrue(set.isEmpty)
        XCTAssertEqual(set.capacity, grown, "not grown again from nothing on the next message")
        for waiter in waiters { set.insert(waiter) }
        XCTAssertEqual(set.capacity, grown)
        XCTAssertEqual(set.count, 1_000)
    }

    func testCompactingShrinksOnlyAnOversizedTableAndKeepsItsWaiters() {
        var set = WaiterSet()
        let waiters = (0..<1_000).map { _ in TestWaiter() }
        for waiter in waiters { set.insert(waiter) }
        let full = set.capacity
        set.compact()
        XCTAssertEqual(set.capacity, full, "as full as it needs to be: kept")
        for waiter in waiters.dropFirst(10) { set.remove(waiter) }
        set.compact()
        XCTAssertEqual(set.capacity, full, "held 1,000 since the last compaction: kept")
        set.compact()
        XCTAssertLessThanOrEqual(set.capacity, 64, "ten since: shrunk")
        XCTAssertEqual(set.count, 10)
        var woken: [any Waiter] = []
        set.takeAll(into: &woken)
        XCTAssertEqual(Set(woken.map { ObjectIdentifier($0) }), Set(waiters.prefix(10).map { ObjectIdentifier($0) }))
    }

    func testASweepShrinksTheTableOfAChannelWhoseAudienceLeft() {
        let hub = Fixture.hub()
        let room = Fixture.subscription(["room"])
        for _ in 0..<1_000 { XCTAssertNil(hub.park(TestWaiter(), on: room, after: hub.currentTimetoken())) }
        func capacity() -> Int { hub.channels.get("room")?.inner.withLock { $0.waiters.capacity } ?? -1 }
        let grown = capacity()
        XCTAssertEqual(hub.publish(Fixture.draft("room")).waiters.count, 1_000)
        XCTAssertEqual(capacity(), grown, "kept between messages")
        XCTAssertEqual(hub.sweep().reclaimedChannels, 0, "its message is still buffered")
        XCTAssertEqual(capacity(), grown, "swept just after a publish took them all: kept for their return")
        _ = hub.sweep()
        XCTAssertLessThanOrEqual(capacity(), 64, "no one came back by the next sweep: given back")
        let waiter = TestWaiter()
        XCTAssertNil(hub.park(waiter, on: room, after: hub.currentTimetoken()))
        XCTAssertTrue(hub.publish(Fixture.draft("room")).waiters.includes(waiter))
    }
}

